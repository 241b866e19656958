import { Kysely, PostgresDialect, sql, type RawBuilder } from 'kysely';
import { loadPg } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { WriteChain } from '../db/postgres-chain.js';
import type { Tx } from '../db/transaction.js';
import {
  hitColumns,
  MAX_SEARCH_SLICE,
  SEARCH_SLICE_MESSAGES,
  SEARCH_WINDOW_SLICES,
  type HitMessage,
  type IndexedMessage,
  type SearchIndex,
  type SearchQuery,
  type SearchResult,
} from './search-index.js';
import { indexTokens, latestOfEach, parseSearchTerms, type SearchTerms } from './terms.js';

// ts_rank weights, in PostgreSQL's order {D, C, B, A}: title (A) 3, text (B) 2, author name (C) 1;
// the link preview, which later work adds, gets C too (docs/api §10.7).
const RANK_WEIGHTS = '{0.1, 0.333, 0.667, 1}';
// ts_rank's normalization 1: the rank divided by 1 + the logarithm of the document's length. BM25
// (docs/api §10.7, and SQLite's bm25) weighs a match in a short message above the same match in a
// long one; without it a long message, which holds more of any word, ranked first. Of the benchmark
// mid word's first 100 hits, 87 are then SQLite's (19 without), 51 for the most common word (12);
// dividing by the length itself (2) went too far the other way for common words.
const RANK_NORMALIZATION = 1;

/**
 * The memory a search may use for its bitmap of matching rows (`work_mem`, see `search`): the exact
 * bitmap of 137,480 hits on 89,000 pages fitted in 32 MB; this leaves room for twice that.
 */
export const SEARCH_WORK_MEM = '64MB';

export const SEARCH_APPLICATION_NAME = 'kith-search';

/** The handles of `openSearchConnections`, whose connections already have SEARCH_WORK_MEM. */
const searchConnections = new WeakSet<Kysely<Database>>();

/**
 * Connections for searches only (features/search/threads.ts), at most `max` of them, opened with
 * SEARCH_WORK_MEM for their whole session: a search on them is its one statement, where on a
 * connection of the server's pool it is four (begin, set local, the statement, commit), each a round
 * trip that took 0.1 to 0.3 ms at the median and over 1 ms at the 95th percentile on the
 * benchmark's machine. An idle connection closes after 10 s, as the search worker does on SQLite.
 */
export function openSearchConnections(url: string, max: number): Kysely<Database> {
  const pool = new (loadPg().Pool)({
    connectionString: url,
    max,
    idleTimeoutMillis: 10_000,
    options: `-c work_mem=${SEARCH_WORK_MEM}`,
    // How an operator (and a test) tells them apart in pg_stat_activity.
    application_name: SEARCH_APPLICATION_NAME,
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  searchConnections.add(db);
  return db;
}

type Nullable<T> = { [K in keyof T]: T[K] | null };

/** Whether a row of the search statement holds a hit, not only the window (an empty answer). */
function isHit(row: Nullable<HitMessage>): row is HitMessage {
  return row.id !== null;
}

/**
 * A field as the document receives it: its normalized words, hashtags without their `#`. The
 * author's name goes through it too (hashtags come from the title and text only: hashtagsOf).
 */
function documentText(text: string | null): string {
  return indexTokens(text)
    .map((token) => token.word)
    .join(' ');
}

/** The distinct hashtags of a message, normalized, without `#`. */
function hashtagsOf(message: IndexedMessage): string[] {
  const tags = [...indexTokens(message.title), ...indexTokens(message.text)]
    .filter((token) => token.hashtag)
    .map((token) => token.word);
  return [...new Set(tags)];
}

/** A lexeme as tsquery text: quoted, with quotes and backslashes escaped (terms hold neither anyway). */
function lexeme(term: string): string {
  return `'${term.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/**
 * The user's part of the tsquery, as text for `to_tsquery` (always passed as a bound parameter):
 * every word term as a prefix (`:*`), every hashtag term as its exact word, all ANDed. The hashtag
 * itself is checked against the separate `hashtags` column.
 */
export function tsqueryText(terms: SearchTerms): string {
  return [...terms.words.map((word) => `${lexeme(word)}:*`), ...terms.hashtags.map(lexeme)].join(' & ');
}

/**
 * Cuts an index filled all at once into slices (search-index.ts): each group's count of messages
 * posted becomes its number of message rows, and each indexed message's slice follows its rank by
 * creation in its group, as migration 0030 numbered them. For `kith migrate-data`, whose upserts
 * all read the group's final count and so put every copied message in the newest slice. Only rows
 * whose slice changes are written; running it again changes nothing.
 */
export async function renumberSearchSlices(db: Kysely<Database>): Promise<void> {
  await sql`
    update groups g set messages_posted = c.n
    from (select group_id, count(*)::integer as n from messages group by group_id) c
    where c.group_id = g.id and g.messages_posted <> c.n`.execute(db);
  await sql`
    update message_search s set slice = n.slice
    from (
      select id,
        least((row_number() over (partition by group_id order by created_at, id) - 1) / ${sql.lit(SEARCH_SLICE_MESSAGES)},
          ${sql.lit(MAX_SEARCH_SLICE)}) as slice
      from messages
    ) n
    where n.id = s.message_id and s.slice <> n.slice`.execute(db);
}

/**
 * PostgreSQL full text (scale-out mode). Table of migration 0003: `message_search(message_id,
 * group_id, document, hashtags)`; `document` holds the title (weight A), text (weight B) and
 * author's name (weight C, since migration 0004) words through `kith_unaccent` and the `simple`
 * configuration. Its GIN index (migration 0025) is on `kith_search_scoped(document, group_id)`,
 * every lexeme behind its group's digits, and each query is scoped the same way, so the index
 * itself keeps a search inside its group (rows written before 0025 also hold an `@<group id>`
 * lexeme, which did that before and which no term can match). Since migration 0030 the scope is
 * the group and the row's `slice` (search-index.ts), and a search reads a window of slices. A term matches if one of its
 * lexeme's occurrences does, whatever its weight, so each term may match in a different field.
 * Rows go with their message through the foreign key's cascade.
 * Link previews are not indexed yet (docs/api §10.7 lists them; later work).
 */
export class PostgresFtsIndex implements SearchIndex {
  async upsert(tx: Tx, messages: IndexedMessage[], writes?: WriteChain): Promise<void> {
    const unique = latestOfEach(messages);
    if (unique.length === 0) return;
    // The columns of `u` below, in order, from each message.
    const fields: ((m: IndexedMessage) => string)[] = [
      (m) => m.id,
      (m) => m.groupId,
      (m) => documentText(m.title),
      (m) => documentText(m.text),
      (m) => documentText(m.authorName),
      (m) => hashtagsOf(m).join(' '),
    ];
    // One message (every post, every edit) is one row of values, not arrays unnested: PostgreSQL
    // keeps a named statement's plan for any values only once it costs no more than a plan made for
    // the values at hand, and for `unnest` of arrays it guesses ten rows where the values say one, so
    // a post's chained writes (db/postgres-chain.ts) were planned again at every post, 0.5-0.8 ms of
    // PostgreSQL's CPU (bench/README.md, issue 23 fourteenth session).
    const [only] = unique;
    const rows =
      unique.length === 1 && only !== undefined
        ? sql`(select ${sql.join(fields.map((pick) => sql`${pick(only)}::text`))})`
        : sql`unnest(${sql.join(fields.map((pick) => sql`${unique.map(pick)}::text[]`))})`;
    const statement = sql`
      insert into message_search (message_id, group_id, slice, document, hashtags)
      select u.id, u.group_id,
        least((select g.messages_posted from groups g where g.id = u.group_id) / ${sql.lit(SEARCH_SLICE_MESSAGES)},
          ${sql.lit(MAX_SEARCH_SLICE)}),
        setweight(to_tsvector('simple', kith_unaccent(u.title)), 'A')
          || setweight(to_tsvector('simple', kith_unaccent(u.body)), 'B')
          || setweight(to_tsvector('simple', kith_unaccent(u.author)), 'C'),
        string_to_array(u.tags, ' ')
      from ${rows} as u(id, group_id, title, body, author, tags)
      on conflict (message_id) do update
        set group_id = excluded.group_id, document = excluded.document, hashtags = excluded.hashtags`;
    // A new row's slice is its group's count of messages posted (search-index.ts), as committed: the
    // triggers count this transaction's messages at its commit (migration 0030). A row already there
    // keeps its slice.
    if (writes === undefined) await statement.execute(tx);
    else await writes.write({ compile: () => statement.compile(tx) });
  }

  async remove(tx: Tx, messageIds: string[]): Promise<void> {
    if (messageIds.length === 0) return;
    await sql`delete from message_search where message_id = any(${messageIds}::text[])`.execute(tx);
  }

  async search(db: Kysely<Database>, query: SearchQuery): Promise<SearchResult> {
    const terms = parseSearchTerms(query.search, query.hashtags);
    if (terms.terms.length === 0) return { hits: [], total: 0, terms: [], older: null };
    const userQuery = sql`to_tsquery('simple', kith_unaccent(${tsqueryText(terms)}))`;
    // The GIN index is on each lexeme scoped by its group and slice (migrations 0025 and 0030): the
    // same expression and the query scoped to each slice of the window (`win`, search-index.ts's
    // searchWindow in SQL) find the window's hits of the group only, so a prefix reads no other
    // group's or slice's words.
    // Past the last slice, `before` means the newest window (and stays inside an integer).
    const before = Math.min(query.before ?? MAX_SEARCH_SLICE + 1, MAX_SEARCH_SLICE + 1);
    const scopedQuery = sql`(select kith_search_window(${userQuery}, ${query.groupId}::text, win.low, win.top) from win)`;
    const hashtagFilter = terms.hashtags.length > 0 ? sql`and s.hashtags @> ${terms.hashtags}::text[]` : sql``;
    // The score ranks the stored document on the user's terms, unscoped. As on SQLite
    // (sqlite-fts.ts), only the hits that can be on the page are joined to their rows, the total
    // is the number of hits, and placeholders are filtered again in case one was left in the index.
    // Those are the hits scoring above the page's last score (`above`, fewer than the page) and
    // the ones tied with it (`tied`), ordered among themselves by activity. The planner cannot know
    // before the cutoff is computed that they are few: for a common word it expected thousands and
    // hashed every message of the group (hundreds of ms at the benchmark's full scale). The lateral
    // lookups, fenced by their `limit 1`, read each hit's row through the primary key whatever the
    // estimates.
    // Hits of the same length and matches tie, and they can be most of the hits: without the length
    // normalization, 1,010 of the mid word's 1,078 at full scale (3 with it, but a group of one-word
    // messages ties them all), each lookup on a page of its own (5-6 ms in all). Only the most active
    // of them reach the page: `walked` first reads the group's messages newest activity first from
    // the (group, in front, activity, id) index alone, one ordered scan per value of is_in_front
    // (0 or 1, never anything else), and keeps the tied ones that are not deleted until the page is
    // full (about 3,300 index entries for the mid word: 1 ms). Ties scattered through old messages
    // would make that walk long, so it gives up after five entries per tie (`budget`; an entry
    // costs a small part of a lookup) and the ties are then looked up one by one as before: for the
    // benchmark's hashtag, 96 of 405 ties needed, the walk would have to read 24,000 entries.
    // Either way the page holds the same rows in the same order, and only its rows are read again
    // for their columns (`ranked`).
    // The tied hits are matched by a hashed subplan (`coalesce` keeps it from becoming a join, which
    // the planner, expecting one tie, ran as a loop over all the ties for each message walked).
    // The activity date of the hit `id` names, if it is a live message of the group, as `m`.
    const activityOf = (id: RawBuilder<unknown>) => sql`cross join lateral (
          select m.last_activity_date
          from messages m
          where m.id = ${id} and m.group_id = ${query.groupId} and m.is_deleted = 0
          limit 1
        ) m`;
    const statement = sql<
      Nullable<HitMessage> & { score: number | string | null; total: number | string | null; low: number }
    >`
      with win as materialized (
        select greatest(w.top - ${sql.lit(SEARCH_WINDOW_SLICES - 1)}, 0) as low, w.top
        from (
          select least(g.messages_posted / ${sql.lit(SEARCH_SLICE_MESSAGES)}, ${sql.lit(MAX_SEARCH_SLICE)}, ${before}::integer - 1) as top
          from groups g
          where g.id = ${query.groupId}
        ) w
        where w.top >= 0
      ),
      hits as materialized (
        select s.message_id, ts_rank(${RANK_WEIGHTS}::float4[], s.document, ${userQuery}, ${sql.lit(RANK_NORMALIZATION)}) as score
        from message_search s
        where kith_search_scoped(s.document, kith_search_scope(s.group_id, s.slice)) @@ ${scopedQuery}
          ${hashtagFilter}
          and s.group_id = ${query.groupId}
      ),
      cutoff as (select score from hits order by score desc limit 1 offset ${Math.max(query.limit - 1, 0)}),
      above as materialized (
        select hits.message_id, hits.score, m.last_activity_date
        from hits
        ${activityOf(sql.ref('hits.message_id'))}
        where hits.score > coalesce((select score from cutoff), '-Infinity'::float4)
      ),
      tied as materialized (select message_id, score from hits where score = (select score from cutoff)),
      budget as (select count(*) * 5 as entries from tied),
      walked as materialized (
        select u.id as message_id, u.last_activity_date
        from (
          (select id, last_activity_date from messages
            where group_id = ${query.groupId} and is_in_front = 1
            order by last_activity_date desc, id desc
            limit (select entries from budget))
          union all
          (select id, last_activity_date from messages
            where group_id = ${query.groupId} and is_in_front = 0
            order by last_activity_date desc, id desc
            limit (select entries from budget))
          order by last_activity_date desc, id desc
          limit (select entries from budget)
        ) u
        cross join lateral (select 1 from messages d where d.id = u.id and d.is_deleted = 0 limit 1) d
        where coalesce(u.id in (select message_id from tied), false)
        order by u.last_activity_date desc, u.id desc
        limit ${query.limit} - (select count(*) from above)
      ),
      walk as (select (select count(*) from walked) = ${query.limit} - (select count(*) from above) as filled),
      page as (
        select message_id, score, last_activity_date from above
        union all
        select walked.message_id, (select score from cutoff), walked.last_activity_date
        from walked
        where (select filled from walk)
        union all
        select tied.message_id, tied.score, m.last_activity_date
        from tied
        ${activityOf(sql.ref('tied.message_id'))}
        where not (select filled from walk)
      ),
      ranked as materialized (
        select message_id, score, last_activity_date
        from page
        order by score desc, last_activity_date desc, message_id desc
        limit ${query.limit}
      ),
      answer as (
        select ${hitColumns}, ranked.score, (select count(*) from hits) as total
        from ranked
        join messages m on m.id = ranked.message_id
      )
      -- One row with no hit when the window has none: the answer still says where older slices start.
      select answer.*, win.low
      from win
      left join answer on true
      order by answer.score desc, answer.last_activity_date desc, answer.id desc`;
    // The hits come from a bitmap of heap pages. Beyond `work_mem` (4 MB by default) PostgreSQL
    // keeps only whole pages in it, and then rechecks the index expression, a regexp over the whole
    // document, on every row of those pages, other groups' too: the most common word of a group of
    // 1,000,000 messages (137,480 hits, 89,000 pages) took 33 s instead of 1 s (bench/README.md,
    // x10). The search connections have room for an exact bitmap; on any other, SET LOCAL gives this
    // statement's transaction that room and no more.
    const run = async (tx: Kysely<Database>) => {
      await sql`set local work_mem = ${sql.lit(SEARCH_WORK_MEM)}`.execute(tx);
      return statement.execute(tx);
    };
    const { rows } = searchConnections.has(db)
      ? await statement.execute(db)
      : db.isTransaction
        ? await run(db)
        : await db.transaction().execute(run);
    const low = rows[0]?.low;
    return {
      hits: rows.flatMap(({ score, total: _total, low: _low, ...message }) =>
        isHit(message) ? [{ message, score: Number(score) }] : [],
      ),
      total: Number(rows[0]?.total ?? 0),
      terms: terms.terms,
      older: low !== undefined && low > 0 ? low : null,
    };
  }
}
