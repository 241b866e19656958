// The group page's first reads, started before the app (issue 23). The page links this small
// script ahead of the app's bundle (web/vite.config.ts), so a signed-in person opening a group
// page, the most common first screen, has the user, the feed's first page and the notifications
// asked for while the bundle still downloads and evaluates, instead of after it. The app takes the
// answers over in prefetchFirstScreen (api/queries.ts, lib/earlyAnswers.ts), only for the same
// page, key and URLs, and handles them as its own calls' answers; otherwise it asks itself.
//
// It imports nothing at run time, so the build keeps it one small file of its own instead of
// loading the app's shared chunks: the route pattern and the request URLs below repeat those of
// the client's queries, and firstScreenReads.test.ts checks that they are the same.
import type { EarlyReads } from './lib/earlyAnswers';

/** A group page's route path (without the base path), its group id captured: prefetchFirstScreen's pattern. */
export const GROUP_PAGE = /^\/groups\/([0-9a-f-]{36})\/?$/;

/**
 * The URLs, under the base path `base`, of a group page's first reads as `call` sends them (api/
 * queries.ts): the user, the feed's first page of 30 cards (LIMITS.groupPageSize), and the 20
 * notifications shown plus one, with reactions and mentions.
 */
export function firstReadUrls(base: string, groupId: string): string[] {
  return [
    `${base}/api/me`,
    `${base}/api/groups/${groupId}/feed?limit=30`,
    `${base}/api/me/notifications/21?include=reactions%2Cmentions`,
  ];
}

/** The stored API key, read as lib/storage.ts reads its wrapped entries; null for a visitor. */
export function storedApiKey(): string | null {
  try {
    const raw = window.localStorage.getItem('apiKey');
    const entry: unknown = raw === null ? null : JSON.parse(raw);
    if (typeof entry !== 'object' || entry === null) return null;
    const { data, createdAt, metadata } = entry as Record<string, unknown>;
    const wrapped = typeof createdAt === 'number' && Number.isFinite(createdAt);
    const isRecord = typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata);
    return wrapped && isRecord && typeof data === 'string' ? data : null;
  } catch {
    // Storage blocked or an entry that is not JSON: the app decides what that means.
    return null;
  }
}

// Statuses whose answers have no body, which `new Response` refuses one for.
const NULL_BODY_STATUSES = [101, 103, 204, 205, 304];

/**
 * The answer to the GET `call` would send for `url` (lib/api.ts: the key, nothing cached), its body
 * already read whole: read here, while the app's bundle is still on its way, rather than by the app
 * in the tasks after its own long first ones. Null when the request failed.
 */
async function read(url: string, key: string): Promise<Response | null> {
  try {
    const response = await fetch(url, { method: 'GET', headers: { 'X-AUTH-TOKEN': key }, cache: 'no-store' });
    const body = await response.arrayBuffer();
    return new Response(NULL_BODY_STATUSES.includes(response.status) ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  } catch {
    return null;
  }
}

/** Starts the first reads if this page is a group page of a signed-in person; what the app is to take. */
export function startFirstScreenReads(): EarlyReads | null {
  // The base path as lib/config.ts reads it from the page the server wrote.
  const base = (document.querySelector<HTMLMetaElement>('meta[name="kith-base-path"]')?.content ?? '').replace(
    /\/+$/,
    '',
  );
  const path = window.location.pathname.slice(base.length) || '/';
  const groupId = GROUP_PAGE.exec(path)?.[1];
  const key = groupId === undefined ? null : storedApiKey();
  if (groupId === undefined || key === null) return null;
  const answers: Record<string, Promise<Response | null>> = {};
  for (const url of firstReadUrls(base, groupId)) answers[url] = read(url, key);
  const reads: EarlyReads = { path, key, answers, arrived: false };
  // The app's first render may wait for answers in hand, but not for a failed read sent again nor
  // for the retries of a server error; a 4xx is final (a stale key: straight to the sign-in page).
  void Promise.all(Object.values(answers)).then(
    (all) => (reads.arrived = all.every((answer) => answer !== null && answer.status < 500)),
  );
  return reads;
}

// The page runs this before the app's module; should it ever run after the app has started (then
// window.kithEarlyReads is null), the app asks itself and nothing is sent twice.
if (window.kithEarlyReads === undefined) window.kithEarlyReads = startFirstScreenReads();
