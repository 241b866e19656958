/**
 * The HTTP load scenarios of issue 7 (item 2), built from the manifest. Where an answer depends on
 * the caller (feed's unread marks, posting, thumbnails' access check), the requests rotate over the
 * big group's members: autocannon's connections cycle through the request list.
 */
import type { LoadRequest } from './load.ts';
import type { RawDb } from './raw.ts';
import type { Manifest, ManifestUser } from './types.ts';

export interface LoadScenario {
  name: string;
  requests: LoadRequest[];
  /** The status every answer must have. */
  expect: number;
}

/**
 * Every message the runner posts has a title starting with this, so that the run can find and delete
 * them afterwards, including those whose answer it never read (in flight when a load run stopped).
 */
export const BENCH_TITLE_PREFIX = 'kith-bench-';
const POST_TITLE = `${BENCH_TITLE_PREFIX}post`;

const json = (key: string | null): Record<string, string> => ({
  ...(key === null ? {} : { 'x-auth-token': key }),
  'content-type': 'application/json',
});

const auth = (key: string): Record<string, string> => ({ 'x-auth-token': key });

function rotate(users: ManifestUser[], make: (user: ManifestUser) => LoadRequest): LoadRequest[] {
  return users.map(make);
}

/** Every load scenario, in table order. */
export function loadScenarios(manifest: Manifest): LoadScenario[] {
  const big = manifest.bigGroup.id;
  const members = manifest.bigGroup.members.length > 0 ? manifest.bigGroup.members : manifest.users.slice(0, 50);
  const s = manifest.search;
  const search = (name: string, words: string): LoadScenario => ({
    name,
    expect: 200,
    requests: rotate(members, (m) => ({
      method: 'POST',
      path: '/api/messages/search',
      headers: json(m.apiKey),
      body: JSON.stringify({ group: s.groupId, search: words, hashtags: '' }),
    })),
  });
  return [
    {
      name: 'page',
      expect: 200,
      requests: rotate(members, (m) => ({ method: 'GET', path: `/api/groups/${big}/page/0`, headers: auth(m.apiKey) })),
    },
    {
      name: 'feed',
      expect: 200,
      requests: rotate(members, (m) => ({ method: 'GET', path: `/api/groups/${big}/feed`, headers: auth(m.apiKey) })),
    },
    {
      name: 'message',
      expect: 200,
      requests: rotate(members, (m) => ({
        method: 'GET',
        path: `/api/messages/${manifest.messageWith20Comments.id}`,
        headers: auth(m.apiKey),
      })),
    },
    search('search-rare', s.rare),
    search('search-mid', s.mid),
    search('search-common', s.common),
    search('search-hashtag', s.hashtag),
    search('search-two-words', s.twoWords),
    {
      name: 'notifications',
      expect: 200,
      requests: [{ method: 'GET', path: '/api/me/notifications/21', headers: auth(manifest.notificationsUser.apiKey) }],
    },
    {
      name: 'bookmarks',
      expect: 200,
      requests: [
        { method: 'GET', path: '/api/me/bookmarks/1001?expand=message', headers: auth(manifest.bookmarksUser.apiKey) },
      ],
    },
    {
      name: 'public',
      expect: 200,
      requests: [{ method: 'GET', path: `/api/public/${manifest.publicToken}` }],
    },
    {
      name: 'thumbnail',
      expect: 200,
      requests: rotate(members, (m) => ({
        method: 'GET',
        path: `/api/images/thumbnail/720/99999/${manifest.thumbnailFileId}`,
        headers: auth(m.apiKey),
      })),
    },
    {
      name: 'post',
      expect: 201,
      requests: rotate(members, (m) => ({
        method: 'POST',
        path: '/api/messages',
        headers: json(m.apiKey),
        body: JSON.stringify({
          group: big,
          data: { title: POST_TITLE, text: `Benchmark post from ${m.id.slice(0, 8)}: nothing to read here.` },
        }),
      })),
    },
  ];
}

/**
 * The `mixed` scenario of issue 23 (target 2): half the connections search the most common word
 * while the other half read the big group's page, at the same time. What it reports is the page's
 * latency: a search's work must not make a page wait.
 */
export interface MixedScenario {
  name: 'mixed';
  /** Measured and reported. */
  page: LoadScenario;
  /** The heavy load beside it. */
  search: LoadScenario;
}

export function mixedScenario(manifest: Manifest): MixedScenario {
  const byName = new Map(loadScenarios(manifest).map((s) => [s.name, s]));
  const page = byName.get('page');
  const search = byName.get('search-common');
  if (page === undefined || search === undefined) throw new Error('the page and search-common scenarios are missing');
  return { name: 'mixed', page, search };
}

/**
 * Deletes every top-level message the runner ever posted (title `kith-bench-…`), through the API as
 * its author, `concurrency` at a time, so the data set stays as the generator made it: the posts go
 * with their notifications and index rows. They are found on the read-only connection.
 */
export async function deleteBenchPosts(
  url: string,
  raw: RawDb,
  manifest: Manifest,
  concurrency = 8,
): Promise<{ found: number; deleted: number; failed: number }> {
  const keys = new Map<string, string>();
  for (const u of [...manifest.users, ...manifest.bigGroup.members, manifest.notificationsUser, manifest.bookmarksUser])
    keys.set(u.id, u.apiKey);
  const rows = await raw.all(`select id, author_id from messages where parent_id is null and title like ?`, [
    `${BENCH_TITLE_PREFIX}%`,
  ]);
  let failed = 0;
  let deleted = 0;
  let next = 0;
  const worker = async () => {
    for (;;) {
      const row = rows[next++];
      if (row === undefined) return;
      const key = keys.get(String(row.author_id));
      if (key === undefined) {
        failed += 1;
        continue;
      }
      try {
        const res = await fetch(`${url}/api/messages/${String(row.id)}`, { method: 'DELETE', headers: auth(key) });
        await res.arrayBuffer();
        if (res.status === 204 || res.status === 404) deleted += 1;
        else failed += 1;
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { found: rows.length, deleted, failed };
}
