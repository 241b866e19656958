/**
 * The `raw_ms` baseline (issue 7, item 3): the SQL of each read scenario run directly on the database,
 * outside the server, on a separate read-only connection. Each function below mirrors the queries the
 * server issues for that answer (named in its comment), with the same tables, filters, order and
 * limits, and binds values as parameters the way Kysely does. The API-key lookup and the membership
 * check that every request also makes are left out: `raw_ms` is the cost of the answer's own data.
 * Queries run one after the other, where the server runs some of them concurrently.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { CHANGE_CHANNEL } from '../../../server/dist/db/postgres-memo.js';
import { recipientId } from '../../../server/dist/features/inbox/ids.js';
import { firstUrlInText } from '../../../server/dist/lib/urls.js';
import { SEARCH_WORK_MEM, tsqueryText } from '../../../server/dist/search/postgres-fts.js';
import {
  MAX_SEARCH_SLICE,
  SEARCH_SLICE_MESSAGES,
  SEARCH_WINDOW_SLICES,
  searchWindow,
} from '../../../server/dist/search/search-index.js';
import { ftsQuery } from '../../../server/dist/search/sqlite-fts.js';
import { parseSearchTerms } from '../../../server/dist/search/terms.js';
import { COMPACT_SEARCH_INDEX } from '../db.ts';
import type { DbKind, Manifest } from './types.ts';

type Row = Record<string, unknown>;

/** A value list that expands to `?, ?, …` (SQL `in (…)`), as Kysely does for `where(x, 'in', ids)`. */
interface List {
  list: readonly unknown[];
}
export const list = (values: readonly unknown[]): List => ({ list: values });
const isList = (value: unknown): value is List =>
  typeof value === 'object' && value !== null && 'list' in value && Array.isArray((value as List).list);

export interface RawDb {
  dialect: DbKind;
  /** Runs SQL written with `?` placeholders; a `list(...)` parameter expands into several. */
  all(sql: string, params?: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

function expand(sql: string, params: unknown[], dialect: DbKind): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  let index = 0;
  const text = sql.replace(/\?/g, () => {
    const param = params[index++];
    const items = isList(param) ? param.list : [param];
    if (items.length === 0) throw new Error('an empty list cannot be bound');
    return items
      .map((item) => {
        values.push(item);
        return dialect === 'postgres' ? `$${values.length}` : '?';
      })
      .join(', ');
  });
  if (index !== params.length) throw new Error(`expected ${index} parameters, got ${params.length}`);
  return { text, values };
}

/** Opens the manifest's database read-only, beside the running server. */
export async function openRawDb(manifest: Manifest): Promise<RawDb> {
  if (manifest.databaseUrl.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: manifest.databaseUrl });
    await client.connect();
    await client.query('set default_transaction_read_only = on');
    // The server runs its search with this much work_mem (postgres-fts.ts); the other reads need less.
    await client.query(`set work_mem = '${SEARCH_WORK_MEM}'`);
    return {
      dialect: 'postgres',
      async all(sql, params = []) {
        const { text, values } = expand(sql, params, 'postgres');
        return (await client.query<Row>(text, values)).rows;
      },
      close: () => client.end(),
    };
  }
  const db = new SQLite(sqliteFileOf(manifest), { readonly: true, fileMustExist: true });
  const statements = new Map<string, SQLite.Statement<unknown[], Row>>();
  return {
    dialect: 'sqlite',
    async all(sql, params = []) {
      const { text, values } = expand(sql, params, 'sqlite');
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = db.prepare<unknown[], Row>(text);
        statements.set(text, statement);
      }
      return statement.all(...values);
    },
    async close() {
      db.close();
    },
  };
}

// The generator sets each group's count of messages ever posted to the messages it made. One pass
// over the messages' group index: counting per group twice (in the SET and the WHERE), on a cold
// cache, once held the write lock past the server's busy timeout (its job poll failed).
const RESTORE_POSTED = `
  update groups set messages_posted = counted.n
  from (select group_id, count(*) as n from messages group by group_id) as counted
  where counted.group_id = groups.id and groups.messages_posted > counted.n`;

/**
 * Puts the data set back as the generator made it, after a run's posts were deleted (or an earlier
 * run's, found at the start); with none deleted there is nothing to put back. On its own writable
 * connection, as the raw one is read-only.
 *
 * - Each group's count of messages ever posted (`groups.messages_posted`) only grows, and it places
 *   every new message in a search slice (server/src/search/search-index.ts): after a day of runs had
 *   posted and deleted 131,000 messages in the big group, its newest search window held only slices
 *   of deleted posts, and the searches found 0 to 230 hits where the generator put 22 to 13,828
 *   (bench/README.md, issue 23 fourteenth session). The count goes back to the group's messages.
 * - PostgreSQL: autovacuum gets to their dead rows late, and until it does every later run reads
 *   through them: after many `post` runs the page made 879 rps and posting 201/s, against 2,303 and
 *   577/s once vacuumed.
 */
export async function restoreAfterCleanup(manifest: Manifest, postsDeleted: boolean): Promise<void> {
  if (!postsDeleted) return;
  if (!manifest.databaseUrl.startsWith('postgres')) {
    const db = new SQLite(sqliteFileOf(manifest), { fileMustExist: true });
    try {
      // The server writes beside it: wait for its write transactions as the server's own CLI does.
      db.pragma('busy_timeout = 10000');
      db.prepare(RESTORE_POSTED).run();
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: manifest.databaseUrl });
  await client.connect();
  try {
    await client.query(RESTORE_POSTED);
    // The running server keeps hot reads up to a second unless told of a change (postgres-memo.ts).
    await client.query(`select pg_notify('${CHANGE_CHANNEL}', '')`);
    // INDEX_CLEANUP ON: a plain VACUUM skips the indexes when under 2 % of the table's pages hold
    // dead rows (PostgreSQL 14's bypass), and a run's 9,301 deleted posts sat on 374 of 63,492 pages:
    // their index entries stayed, at the newest end of the group's indexes, where the page's walk
    // starts. It then read 253 index pages for 30 ids (0.9 ms) instead of 8 (0.04 ms).
    await client.query('vacuum (analyze, index_cleanup on)');
  } finally {
    await client.end();
  }
}

/**
 * SQLite: merges the search index into one segment again, as the generator left it (lib/db.ts). A
 * deleted row stays in FTS5's segments, marked by a tombstone, until a merge rewrites them, and a
 * search checks each hit against those marks: after a run had posted and deleted 29,176 messages,
 * counting the most common word's 13,828 hits took 4.9 ms instead of 1.2, and ranking them 27 ms
 * instead of 18, in every later run. PostgreSQL's counterpart is restoreAfterCleanup's VACUUM. The
 * merge holds the write lock for some 16 s at full scale, longer than the server waits for it (5 s):
 * it runs once the server has stopped. Says whether it merged (not on PostgreSQL).
 */
export function compactSearchIndex(manifest: Manifest): boolean {
  if (manifest.databaseUrl.startsWith('postgres')) return false;
  const db = new SQLite(sqliteFileOf(manifest), { fileMustExist: true });
  try {
    db.exec(COMPACT_SEARCH_INDEX);
    return true;
  } finally {
    db.close();
  }
}

function sqliteFileOf(manifest: Manifest): string {
  return manifest.databaseUrl.startsWith('sqlite:')
    ? manifest.databaseUrl.slice('sqlite:'.length).replace(/^\/\//, '')
    : `${manifest.dataDir}/kith.db`;
}

// ---- Building blocks, each mirroring one server function -------------------------------------

/** Mirrors `findMessageViews` (server/src/features/messages/queries.ts). */
function messageViews(db: RawDb, ids: string[]): Promise<Row[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.all(
    `select m.*, (select g.name from groups as g where g.id = m.group_id) as group_name, a.name as author_name,
       a.avatar_id as author_avatar_id
     from messages as m
     left join users as a on a.id = m.author_id
     where m.id in (?)`,
    [list(ids)],
  );
}

/** Mirrors `childCounts` (features/messages/queries.ts). */
function childCounts(db: RawDb, ids: string[]): Promise<Row[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.all(`select parent_id, count(*) as n from messages where parent_id in (?) group by parent_id`, [list(ids)]);
}

/** Mirrors `childrenOf` (features/messages/queries.ts). */
function childrenOf(db: RawDb, ids: string[]): Promise<Row[]> {
  return db.all(`select id, parent_id from messages where parent_id in (?) order by created_at, id`, [list(ids)]);
}

/** Mirrors `filesOfMessages` (features/files/queries.ts), used by `presentedFilesOf`. */
function filesOfMessages(db: RawDb, ids: string[]): Promise<Row[]> {
  return db.all(
    `select f.*, mf.message_id from message_files as mf inner join files as f on f.id = mf.file_id
     where mf.message_id in (?) order by mf.message_id, mf.position`,
    [list(ids)],
  );
}

/** Mirrors `linkPreviewsOf` (features/messages/queries.ts): no query when no text has a URL. */
async function linkPreviewsOf(db: RawDb, messages: Row[]): Promise<Row[]> {
  const urls = new Set<string>();
  for (const m of messages) {
    const url = firstUrlInText(typeof m.text === 'string' ? m.text : null);
    if (url !== null) urls.add(url);
  }
  if (urls.size === 0) return [];
  return db.all(
    `select f.*, l.url as link_url from links as l inner join files as f on f.id = l.preview_file_id
     where l.url in (?)`,
    [list([...urls])],
  );
}

/** Mirrors `reactionViewsOf` (features/messages/queries.ts), read by `reactionSummariesOf`. */
function reactionsOf(db: RawDb, ids: string[]): Promise<Row[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.all(
    `select r.id, r.message_id, r.user_id, u.name as user_name, r.emoji
     from reactions as r inner join users as u on u.id = r.user_id
     where r.message_id in (?) order by r.created_at, r.id`,
    [list(ids)],
  );
}

/** Mirrors `mentionViewsOf` (features/messages/queries.ts), read by `mentionsOf`. */
function mentionsOf(db: RawDb, ids: string[]): Promise<Row[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.all(
    `select x.message_id, x.user_id, u.name as user_name, x.written_name
     from mentions as x inner join users as u on u.id = x.user_id
     where x.message_id in (?) order by x.message_id, x.position`,
    [list(ids)],
  );
}

/** Mirrors `previewsOf` (features/messages/queries.ts): first files, then link previews of the rest. */
async function previewsOf(db: RawDb, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const first = await db.all(
    `select f.*, mf.message_id from message_files as mf inner join files as f on f.id = mf.file_id
     where mf.message_id in (?) and mf.position = ?`,
    [list(ids), 0],
  );
  const have = new Set(first.map((r) => r.message_id));
  const missing = ids.filter((id) => !have.has(id));
  if (missing.length === 0) return;
  const texts = await db.all(`select id, text from messages where id in (?) and is_deleted = ?`, [list(missing), 0]);
  await linkPreviewsOf(db, texts);
}

const ids = (rows: Row[], key = 'id'): string[] => rows.map((r) => String(r[key]));

// ---- Scenarios ---------------------------------------------------------------------------------

/** What a raw scenario returns: the ids it found, compared with the API's answer as a sanity check. */
export interface RawAnswer {
  ids: string[];
  total?: number;
}

/**
 * Mirrors `memberFrontAndPins` (features/messages/queries.ts): membership, the kept count and the
 * pinned ids in one query.
 */
async function memberFrontAndPins(db: RawDb, groupId: string, userId: string): Promise<number> {
  const rows = await db.all(
    `select g.front_count,
       (select ms.user_id from memberships as ms where ms.group_id = g.id and ms.user_id = ?) as member_id,
       (select string_agg(p.id, ',' order by p.pin_order) from messages as p
        where p.group_id = g.id and p.pin_order is not null) as pinned
     from groups as g where g.id = ?`,
    [userId, groupId],
  );
  return Number(rows[0]?.front_count ?? 0);
}

/** Mirrors `groupPage` (features/messages/feed.ts): `memberFrontAndPins`, then `frontMessagesQuery` page 0. */
async function groupPage(db: RawDb, groupId: string, userId: string): Promise<RawAnswer> {
  if (db.dialect === 'postgres') {
    // `findCallerAndFrontPage`: the same in one statement on PostgreSQL, page 0 (the server reads the
    // caller in the same statement; like every key lookup, it is left out here).
    const [row] = await db.all(
      `with h as (
         select g.id, g.front_count,
           (select ms.user_id from memberships as ms where ms.group_id = g.id and ms.user_id = ?) as member_id,
           array(select p.id from messages as p where p.group_id = g.id and p.pin_order is not null
             order by p.pin_order) as pinned
         from groups as g where g.id = ?
       )
       select h.front_count, h.member_id, h.pinned,
         case when h.member_id is not null then array(
           select m.id from messages as m
           where m.group_id = h.id and m.is_in_front = 1 and m.id <> all(h.pinned)
           order by m.last_activity_date desc, m.id desc limit 30
         ) end as others
       from h`,
      [userId, groupId],
    );
    return {
      ids: [...(row?.pinned as string[]), ...(row?.others as string[])].slice(0, 30),
      total: Number(row?.front_count),
    };
  }
  const total = await memberFrontAndPins(db, groupId, userId);
  const rows = await db.all(
    `select id from messages where group_id = ? and is_in_front = ?
     order by last_activity_date desc, id desc limit ? offset ?`,
    [groupId, 1, 30, 0],
  );
  return { ids: ids(rows), total };
}

/**
 * Mirrors `groupFeed` (features/messages/feed.ts) without a cursor: `memberFrontAndPins`, the page
 * (30 + 1), the cards (`findMessageViews`), `childCounts`, `unreadThreadIds`, `previewsOf`, and
 * the cards' reactions and mentions.
 */
async function groupFeed(db: RawDb, groupId: string, userId: string): Promise<RawAnswer> {
  const total = await memberFrontAndPins(db, groupId, userId);
  const rows = await db.all(
    `select id, last_activity_date from messages where group_id = ? and is_in_front = ?
     order by last_activity_date desc, id desc limit ?`,
    [groupId, 1, 31],
  );
  const shown = ids(rows).slice(0, 30);
  await messageViews(db, shown);
  await childCounts(db, shown);
  // unreadSince (features/inbox/queries.ts): after joining, and after the read-all watermark or the
  // oldest event marked unread, whichever is older.
  const watermark = `(select notifications_read_until from users where id = ?)`;
  const marked = `(select min(e2.created_at) from notification_states as s2
    inner join notification_events as e2 on e2.id = s2.event_id where s2.user_id = ? and s2.read = ?)`;
  const afterRead = `(case when ${watermark} is null then -1 when ${marked} <= ${watermark} then ${marked}
    else ${watermark} + 1 end)`;
  const afterReadParams = [userId, userId, 0, userId, userId, 0, userId];
  await db.all(
    `select mm.id, mm.lineage ${EVENTS_OF}
     inner join messages as mm on mm.id = e.target
     where m.user_id = ? and ${EVENT_LISTED} and e.group_id = ? and m.group_id = ?
       and e.created_at >= (case when m.joined_at > ${afterRead} then m.joined_at else ${afterRead} end)
       and ${EVENT_UNREAD} and e.type in (?)
     order by e.created_at desc limit ?`,
    [userId, 0, groupId, groupId, ...afterReadParams, ...afterReadParams, list(['new_message', 'new_comment']), 1000],
  );
  await previewsOf(db, shown);
  await reactionsOf(db, shown);
  await mentionsOf(db, shown);
  return { ids: shown, total };
}

/**
 * Mirrors `messageAnswer` (features/messages/service.ts): the view, its children, files, link
 * preview, reactions and mentions.
 */
async function messageDetail(db: RawDb, id: string, userId: string): Promise<RawAnswer> {
  if (db.dialect === 'postgres') {
    // `findCallerAndMessage`: the view, membership, children, files, reactions and mentions in one
    // statement on PostgreSQL, then the link preview. (The server reads the caller by their key in
    // the same statement; like every key lookup, it is left out here.)
    const views = await db.all(
      `select m.*, (select g.name from groups as g where g.id = m.group_id) as group_name, a.name as author_name,
         a.avatar_id as author_avatar_id, ms.user_id as member_id,
         case when ms.user_id is not null then (
           select json_agg(c.id order by c.created_at, c.id) from messages as c where c.parent_id = m.id) end
           as x_children,
         case when ms.user_id is not null then (
           select json_agg(to_json(f) order by mf.position) from message_files as mf
           inner join files as f on f.id = mf.file_id where mf.message_id = m.id) end as x_files,
         case when ms.user_id is not null then (
           select json_agg(json_build_object('id', r.id, 'message_id', r.message_id, 'user_id', r.user_id,
             'user_name', u.name, 'emoji', r.emoji) order by r.created_at, r.id)
           from reactions as r inner join users as u on u.id = r.user_id where r.message_id = m.id) end as x_reactions,
         case when ms.user_id is not null then (
           select json_agg(json_build_object('message_id', x.message_id, 'user_id', x.user_id, 'user_name', u.name,
             'written_name', x.written_name) order by x.position)
           from mentions as x inner join users as u on u.id = x.user_id where x.message_id = m.id) end as x_mentions
       from messages as m
       left join users as a on a.id = m.author_id
       left join memberships as ms on ms.group_id = m.group_id and ms.user_id = ?
       where m.id = ?`,
      [userId, id],
    );
    await linkPreviewsOf(db, views);
    return { ids: (views[0]?.x_children as string[] | undefined) ?? [] };
  }
  const views = await messageViews(db, [id]);
  const children = await childrenOf(db, [id]);
  await filesOfMessages(db, [id]);
  await linkPreviewsOf(db, views);
  await reactionsOf(db, [id]);
  await mentionsOf(db, [id]);
  return { ids: ids(children) };
}

/** `hitColumns` (server/src/search/search-index.ts). */
const HIT_COLUMNS = `m.id, m.author_id, m.parent_id, m.title, m.text, m.created_at, m.last_activity_date,
  (select count(*) from messages c where c.parent_id = m.id) as children`;

/**
 * Mirrors `SqliteFtsIndex.search` / `PostgresFtsIndex.search` (server/src/search/): the ranked hits
 * with the page's message columns and reply counts (`hitColumns`).
 */
async function search(db: RawDb, groupId: string, text: string, limit = 100): Promise<RawAnswer> {
  const terms = parseSearchTerms(text, '');
  if (terms.terms.length === 0) return { ids: [], total: 0 };
  let rows: Row[];
  if (db.dialect === 'sqlite') {
    // The window of the group's newest slices (search-index.ts), read first as the server does.
    const [group] = await db.all('select messages_posted from groups where id = ?', [groupId]);
    const window = searchWindow(Number(group?.messages_posted ?? 0), null);
    if (window === null) return { ids: [], total: 0 };
    rows = await db.all(
      `with hits as materialized (
         select rowid as id, -bm25(message_search, 0, 3, 2, 1) as score
         from message_search
         where message_search match ?
       ),
       cutoff as (select score from hits order by score desc limit 1 offset ?),
       page as materialized (
         select r.message_id, hits.score, m.last_activity_date
         from hits
         cross join message_search_rows r on r.id = hits.id
         cross join messages m on m.id = r.message_id
         where hits.score >= coalesce((select score from cutoff), -1e308)
           and m.group_id = ? and m.is_deleted = 0
         order by hits.score desc, m.last_activity_date desc, m.id desc
         limit ?
       )
       select ${HIT_COLUMNS}, page.score, (select count(*) from hits) as total
       from page
       cross join messages m on m.id = page.message_id
       order by page.score desc, page.last_activity_date desc, page.message_id desc`,
      [ftsQuery(groupId, terms, window.low, window.top), limit - 1, groupId, limit],
    );
  } else {
    const hashtagFilter = terms.hashtags.length > 0 ? 'and s.hashtags @> ?::text[]' : '';
    // The hits scoring above the page's last score, then its ties by activity: walked from the
    // (group, in front, activity, id) index, or looked up one by one if that walk gives up.
    const lookup = (alias: string) => `cross join lateral (
         select m.last_activity_date from messages m
         where m.id = ${alias}.message_id and m.group_id = ? and m.is_deleted = 0
         limit 1
       ) m`;
    const front = (value: number) => `(select id, last_activity_date from messages
         where group_id = ? and is_in_front = ${value}
         order by last_activity_date desc, id desc
         limit (select entries from budget))`;
    const params: unknown[] = [
      groupId,
      '{0.1, 0.333, 0.667, 1}',
      tsqueryText(terms),
      tsqueryText(terms),
      groupId,
      ...(terms.hashtags.length > 0 ? [terms.hashtags] : []),
      groupId,
      limit - 1,
      groupId,
      groupId,
      groupId,
      limit,
      limit,
      groupId,
      limit,
    ];
    rows = await db.all(
      `with win as materialized (
         select greatest(w.top - ${SEARCH_WINDOW_SLICES - 1}, 0) as low, w.top
         from (select least(g.messages_posted / ${SEARCH_SLICE_MESSAGES}, ${MAX_SEARCH_SLICE}) as top
           from groups g where g.id = ?) w
       ),
       hits as materialized (
         select s.message_id, ts_rank(?::float4[], s.document, to_tsquery('simple', kith_unaccent(?)), 1) as score
         from message_search s
         where kith_search_scoped(s.document, kith_search_scope(s.group_id, s.slice))
           @@ (select kith_search_window(to_tsquery('simple', kith_unaccent(?)), ?::text, win.low, win.top) from win)
           ${hashtagFilter}
           and s.group_id = ?
       ),
       cutoff as (select score from hits order by score desc limit 1 offset ?),
       above as materialized (
         select hits.message_id, hits.score, m.last_activity_date
         from hits ${lookup('hits')}
         where hits.score > coalesce((select score from cutoff), '-Infinity'::float4)
       ),
       tied as materialized (select message_id, score from hits where score = (select score from cutoff)),
       budget as (select count(*) * 5 as entries from tied),
       walked as materialized (
         select u.id as message_id, u.last_activity_date
         from (${front(1)} union all ${front(0)}
           order by last_activity_date desc, id desc
           limit (select entries from budget)) u
         cross join lateral (select 1 from messages d where d.id = u.id and d.is_deleted = 0 limit 1) d
         where coalesce(u.id in (select message_id from tied), false)
         order by u.last_activity_date desc, u.id desc
         limit ? - (select count(*) from above)
       ),
       walk as (select (select count(*) from walked) = ? - (select count(*) from above) as filled),
       page as (
         select message_id, score, last_activity_date from above
         union all
         select walked.message_id, (select score from cutoff), walked.last_activity_date
         from walked where (select filled from walk)
         union all
         select tied.message_id, tied.score, m.last_activity_date
         from tied ${lookup('tied')}
         where not (select filled from walk)
       ),
       ranked as materialized (
         select message_id, score, last_activity_date from page
         order by score desc, last_activity_date desc, message_id desc
         limit ?
       )
       select ${HIT_COLUMNS}, ranked.score, (select count(*) from hits) as total
       from ranked
       join messages m on m.id = ranked.message_id
       order by ranked.score desc, ranked.last_activity_date desc, ranked.message_id desc`,
      params,
    );
  }
  return { ids: ids(rows), total: Number(rows[0]?.total ?? 0) };
}

/**
 * The events a member receives, with their state (`eventsOf`, features/inbox/queries.ts): the
 * `from` clause; `EVENT_LISTED` takes `?` = 0 (not deleted) after `m.user_id = ?`.
 */
const EVENTS_OF = `from notification_events as e
  inner join memberships as m on m.group_id = e.group_id and m.joined_at <= e.created_at
  inner join users as me on me.id = m.user_id
  left join notification_states as s on s.event_id = e.id and s.user_id = m.user_id`;
const EVENT_LISTED = `(e.actor_id is null or e.actor_id != m.user_id) and (s.deleted is null or s.deleted = ?)`;
/** `unreadEvent()`. */
const EVENT_UNREAD = `(s.read = 0 or (s.read is null and (me.notifications_read_until is null
  or e.created_at > me.notifications_read_until)))`;

/**
 * Mirrors `listNotifications` (features/notifications/queries.ts): the newest `limit` personal rows
 * and the newest `limit` events of each group of the user in one UNION ALL, sorted and cut, with
 * `withNames`' joins. On PostgreSQL the groups' events are one LATERAL branch
 * (`newestEventsOfEachGroup`); on SQLite the user's groups are read first, then one branch each.
 * An event's id is the one its member sees (`recipientId`).
 */
async function notifications(db: RawDb, userId: string, limit: number): Promise<RawAnswer> {
  const personal = `select * from (select 'p' as kind, p.id as base_id, p.user_id, p.type, p.created_at, p.read,
       p.emailed_at, p.target, p.data, p.from_user_id, p.from_group_id, p.from_message_id, p.title
     from notifications as p where p.user_id = ? order by p.created_at desc, p.id desc limit ?) as b`;
  const eventColumns = `'e' as kind, e.id as base_id, m.user_id, e.type, e.created_at,
       case when s.read is not null then s.read when e.created_at <= me.notifications_read_until then 1 else 0 end
         as read,
       s.emailed_at, e.target, e.data, e.from_user_id, e.from_group_id, e.from_message_id, e.title`;
  let events: string[];
  let eventParams: unknown[];
  if (db.dialect === 'postgres') {
    events = [
      `select b.* from memberships as m
       inner join users as me on me.id = m.user_id
       inner join lateral (select ${eventColumns}
         from notification_events as e
         left join notification_states as s on s.event_id = e.id and s.user_id = m.user_id
         where e.group_id = m.group_id and e.created_at >= m.joined_at
           and (e.actor_id is null or e.actor_id != m.user_id)
           and not exists (select d.event_id from notification_states as d
             where d.user_id = m.user_id and d.event_id = e.id and d.deleted != ?)
         order by e.created_at desc, e.id desc limit ?) as b on true
       where m.user_id = ?`,
    ];
    eventParams = [0, limit, userId];
  } else {
    const groups = await db.all(`select group_id from memberships where user_id = ?`, [userId]);
    events = groups.map(
      () => `select * from (select ${eventColumns}
     ${EVENTS_OF}
     where m.user_id = ? and ${EVENT_LISTED} and e.group_id = ? and m.group_id = ?
     order by e.created_at desc, e.id desc limit ?) as b`,
    );
    eventParams = groups.flatMap((g) => [userId, 0, g.group_id, g.group_id, limit]);
  }
  const rows = await db.all(
    `select n.kind, n.base_id, n.user_id, n.type, n.created_at, n.read, n.target, n.data, n.from_user_id,
       n.from_group_id, n.from_message_id, n.title, fu.name as from_user_name, fu.avatar_id as from_user_avatar_id,
       fg.name as from_group_name, fma.name as parent_author_name
     from (${[personal, ...events].join(' union all ')}) as n
     left join users as fu on fu.id = n.from_user_id
     left join groups as fg on fg.id = n.from_group_id
     left join messages as fm on fm.id = n.from_message_id
     left join users as fma on fma.id = fm.author_id
     order by n.created_at desc, n.base_id desc
     limit ?`,
    [userId, limit, ...eventParams, limit],
  );
  return { ids: rows.map((r) => (r.kind === 'e' ? recipientId(String(r.base_id), userId) : String(r.base_id))) };
}

/** Mirrors `listBookmarks` with `expand=message` (features/bookmarks/service.ts): the list, then the cards. */
async function bookmarks(db: RawDb, userId: string, limit: number): Promise<RawAnswer> {
  const rows = await db.all(
    `select b.id, b.user_id, b.message_id, b.created_at
     from bookmarks as b
     inner join messages as m on m.id = b.message_id
     inner join memberships as ms on ms.group_id = m.group_id and ms.user_id = ?
     where b.user_id = ? and m.is_deleted = ?
     order by b.created_at desc, b.id desc
     limit ?`,
    [userId, userId, 0, limit],
  );
  const messageIds = ids(rows, 'message_id');
  await messageViews(db, messageIds);
  await childCounts(db, messageIds);
  await previewsOf(db, messageIds);
  await reactionsOf(db, messageIds);
  await mentionsOf(db, messageIds);
  return { ids: ids(rows) };
}

/**
 * Mirrors `getPublicMessage` (features/messages/public-links.ts): on PostgreSQL the view by token with
 * its files and reactions in one statement (`findPublicViewAndExtras`), on SQLite the view, then
 * files and reactions; the link preview after either.
 */
async function publicMessage(db: RawDb, token: string): Promise<RawAnswer> {
  if (db.dialect === 'postgres') {
    const views = await db.all(
      `select m.*, (select g.name from groups as g where g.id = m.group_id) as group_name, a.name as author_name,
         a.avatar_id as author_avatar_id,
         (select json_agg(to_json(f) order by mf.position) from message_files as mf
           inner join files as f on f.id = mf.file_id where mf.message_id = m.id) as x_files,
         (select json_agg(json_build_object('id', r.id, 'message_id', r.message_id, 'user_id', r.user_id,
           'user_name', u.name, 'emoji', r.emoji) order by r.created_at, r.id)
           from reactions as r inner join users as u on u.id = r.user_id where r.message_id = m.id) as x_reactions
       from messages as m
       left join users as a on a.id = m.author_id
       where m.id in (select id from messages where public_token = ? and is_deleted = ?)`,
      [token, 0],
    );
    if (views.length === 0) return { ids: [] };
    await linkPreviewsOf(db, views);
    return { ids: ids(views) };
  }
  const views = await db.all(
    `select m.*, (select g.name from groups as g where g.id = m.group_id) as group_name, a.name as author_name,
       a.avatar_id as author_avatar_id
     from messages as m
     left join users as a on a.id = m.author_id
     where m.id in (select id from messages where public_token = ? and is_deleted = ?)`,
    [token, 0],
  );
  const found = ids(views);
  if (found.length === 0) return { ids: [] };
  await filesOfMessages(db, found);
  await linkPreviewsOf(db, views);
  await reactionsOf(db, found);
  return { ids: found };
}

/** The raw query set of each read scenario, by scenario name. Scenarios absent here get `raw_ms: null`. */
export function rawScenarios(manifest: Manifest): Record<string, (db: RawDb) => Promise<RawAnswer>> {
  const big = manifest.bigGroup.id;
  const reader = manifest.bigGroup.members[0]?.id ?? '';
  const s = manifest.search;
  return {
    page: (db) => groupPage(db, big, reader),
    feed: (db) => groupFeed(db, big, reader),
    message: (db) => messageDetail(db, manifest.messageWith20Comments.id, reader),
    'search-rare': (db) => search(db, s.groupId, s.rare),
    'search-mid': (db) => search(db, s.groupId, s.mid),
    'search-common': (db) => search(db, s.groupId, s.common),
    'search-hashtag': (db) => search(db, s.groupId, s.hashtag),
    'search-two-words': (db) => search(db, s.groupId, s.twoWords),
    notifications: (db) => notifications(db, manifest.notificationsUser.id, 21),
    bookmarks: (db) => bookmarks(db, manifest.bookmarksUser.id, 1001),
    public: (db) => publicMessage(db, manifest.publicToken),
  };
}

/** Timed runs of a query too slow for its budget: enough for a median, without holding the run for minutes. */
const SLOW_RUNS = 3;

/**
 * Median wall time (ms) of `run`, after one untimed run: at least `minRuns` runs, more while the
 * time budget lasts (at most `maxRuns`). A query that has used five budgets stops at SLOW_RUNS runs
 * even below `minRuns`: at x10 a PostgreSQL search takes seconds, and ten of each held the run for
 * minutes before any load (bench/README.md, x10). `now` is the clock, replaced in tests.
 */
export async function timeMedian(
  run: () => Promise<unknown>,
  options: { minRuns: number; maxRuns: number; budgetMs: number; now?: () => number },
): Promise<number> {
  const now = options.now ?? (() => performance.now());
  await run();
  const times: number[] = [];
  const started = now();
  const wanted = (elapsed: number): boolean => {
    if (times.length >= options.maxRuns) return false;
    if (elapsed < options.budgetMs) return true;
    if (times.length < SLOW_RUNS) return true;
    return times.length < options.minRuns && elapsed < 5 * options.budgetMs;
  };
  while (wanted(now() - started)) {
    const t0 = now();
    await run();
    times.push(now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor((times.length - 1) / 2)] ?? 0;
}
