import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Tx } from '../db/transaction.js';
import { deferToBatchEnd, type BatchEndWork } from '../db/write-batch.js';
import {
  hitColumns,
  MAX_SEARCH_SLICE,
  SEARCH_SLICE_MESSAGES,
  searchWindow,
  sliceCode,
  type HitMessage,
  type IndexedMessage,
  type SearchIndex,
  type SearchQuery,
  type SearchResult,
} from './search-index.js';
import { indexTokens, latestOfEach, parseSearchTerms, type SearchTerms } from './terms.js';

// Rows per statement: far below SQLite's limit on bound parameters (32766).
const CHUNK = 200;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * What starts every token of a message: its group's id without dashes (32 hex digits) and its slice
 * (4 hex digits), so a search reads only its own group's word lists, and of those only the slices it
 * asks for (migrations 0011 and 0030).
 */
function scopeOf(groupId: string, slice: number): string {
  return groupId.replaceAll('-', '') + sliceCode(slice);
}

/**
 * What the index stores for a field: its normalized words joined by single spaces, hashtags with
 * their `#`, each after the scope. The FTS5 tokenizer (unicode61, `#` a token character) then reads
 * exactly our tokens.
 */
function indexText(scope: string, text: string | null): string {
  return indexTokens(text)
    .map((token) => (token.hashtag ? `${scope}#${token.word}` : `${scope}${token.word}`))
    .join(' ');
}

/**
 * What the index stores for the author's name: its normalized words only, after the scope. A name
 * is no message content, so a `#` in it makes no hashtag (hashtag terms never look at this column
 * anyway).
 */
function authorIndexText(scope: string, name: string | null): string {
  return indexTokens(name)
    .map((token) => `${scope}${token.word}`)
    .join(' ');
}

/** The FTS row of a message in `slice`: the values of `(rowid, message_id, title, text, author)`. */
export function ftsRow(rowId: number, slice: number, m: IndexedMessage): RawBuilder<unknown> {
  const scope = scopeOf(m.groupId, slice);
  return sql`(${rowId}, ${m.id}, ${indexText(scope, m.title)}, ${indexText(scope, m.text)},
    ${authorIndexText(scope, m.authorName)})`;
}

/** A term as an FTS5 string: always quoted, inner quotes doubled, so no input is query syntax. */
function quote(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/**
 * The FTS5 query: every term, AND, each within the group and the slices `low` to `top`. A word term
 * is a prefix of a word or of a hashtag's word part, in the title, the text or the author's name
 * (each term may match in a different column); a hashtag term is that exact token, in the title or
 * the text. A message lies in one slice, so a row matching every term matches each in its own
 * slice. Callers give at least one term.
 */
export function ftsQuery(groupId: string, terms: SearchTerms, low: number, top: number): string {
  const scopes: string[] = [];
  for (let slice = top; slice >= low; slice--) scopes.push(scopeOf(groupId, slice));
  const parts: string[] = [];
  for (const word of terms.words) {
    const each = scopes.map((scope) => `${quote(`${scope}${word}`)}* OR ${quote(`${scope}#${word}`)}*`);
    parts.push(`{title text author} : (${each.join(' OR ')})`);
  }
  for (const tag of terms.hashtags) {
    parts.push(`{title text} : (${scopes.map((scope) => quote(`${scope}#${tag}`)).join(' OR ')})`);
  }
  return parts.join(' AND ');
}

/**
 * Adds or replaces the index rows of `messages`. A new row gets its slice from its group's count of
 * messages posted (search-index.ts); a row already there keeps its own.
 */
async function writeRows(tx: Tx, messages: IndexedMessage[]): Promise<void> {
  for (const batch of chunks(latestOfEach(messages))) {
    const { rows } = await sql<{ id: number; message_id: string; slice: number }>`
      insert into message_search_rows (message_id, slice)
      values ${sql.join(
        batch.map(
          // Literals: a bound number is a REAL to SQLite, and the division would not be an integer one.
          (m) => sql`(${m.id}, min((select messages_posted from groups where id = ${m.groupId})
            / ${sql.lit(SEARCH_SLICE_MESSAGES)}, ${sql.lit(MAX_SEARCH_SLICE)}))`,
        ),
      )}
      on conflict (message_id) do update set message_id = excluded.message_id
      returning id, message_id, slice`.execute(tx);
    const byMessage = new Map(rows.map((row) => [row.message_id, row]));
    await sql`delete from message_search where rowid in (${sql.join(rows.map((row) => row.id))})`.execute(tx);
    const values = batch.map((m) => {
      const row = byMessage.get(m.id);
      if (row === undefined) throw new Error(`No index row came back for message ${m.id}`);
      return ftsRow(row.id, row.slice, m);
    });
    await sql`
      insert into message_search (rowid, message_id, title, text, author)
      values ${sql.join(values)}`.execute(tx);
  }
}

/** Removes the index rows of these messages, if any. */
async function removeRows(tx: Tx, messageIds: string[]): Promise<void> {
  for (const batch of chunks(messageIds)) {
    // The trigger of migration 0003 deletes the FTS rows.
    await sql`delete from message_search_rows where message_id in (${sql.join(batch)})`.execute(tx);
  }
}

type IndexWrite = { upsert: IndexedMessage[] } | { remove: string[] };

/**
 * The index writes of a shared SQLite batch, at its end (db/write-batch.ts says why): each
 * message's last write wins. A later unit may have deleted a message, or made it a placeholder,
 * without a write here (a thread's cascade), so only messages still live at the end are written, and
 * the rows of the others removed.
 */
const atBatchEnd: BatchEndWork<IndexWrite> = {
  async flush(tx, writes) {
    const last = new Map<string, IndexedMessage | null>();
    for (const write of writes) {
      if ('upsert' in write) for (const m of write.upsert) last.set(m.id, m);
      else for (const id of write.remove) last.set(id, null);
    }
    const upserts = [...last.values()].filter((m): m is IndexedMessage => m !== null);
    const live = new Set<string>();
    for (const batch of chunks(upserts.map((m) => m.id))) {
      const rows = await tx
        .selectFrom('messages')
        .select('id')
        .where('id', 'in', batch)
        .where('is_deleted', '=', 0)
        .execute();
      for (const row of rows) live.add(row.id);
    }
    await removeRows(
      tx,
      [...last.keys()].filter((id) => !live.has(id)),
    );
    await writeRows(
      tx,
      upserts.filter((m) => live.has(m.id)),
    );
  },
};

/**
 * SQLite FTS5 (embedded mode). Tables of migrations 0003, 0004 and 0011: `message_search`
 * (contentless FTS5: message_id UNINDEXED and stored, title, text, author, every token after its
 * group's prefix) and `message_search_rows` (message id → FTS
 * rowid; deleting a row there, directly or through the cascade from `messages`, deletes the FTS row
 * by trigger). Link previews are not indexed yet (docs/api §10.7 lists them; later work).
 */
export class SqliteFtsIndex implements SearchIndex {
  async upsert(tx: Tx, messages: IndexedMessage[]): Promise<void> {
    if (!deferToBatchEnd(tx, atBatchEnd, { upsert: messages })) await writeRows(tx, messages);
  }

  async remove(tx: Tx, messageIds: string[]): Promise<void> {
    if (!deferToBatchEnd(tx, atBatchEnd, { remove: messageIds })) await removeRows(tx, messageIds);
  }

  async search(db: Kysely<Database>, query: SearchQuery): Promise<SearchResult> {
    const terms = parseSearchTerms(query.search, query.hashtags);
    if (terms.terms.length === 0) return { hits: [], total: 0, terms: [], older: null };
    // The window: the group's newest slices, or those below `before`. A post answered before this
    // search began is counted in `messages_posted` already, so its slice is in the newest window.
    const group = await db
      .selectFrom('groups')
      .select('messages_posted')
      .where('id', '=', query.groupId)
      .executeTakeFirst();
    const window = searchWindow(group?.messages_posted ?? 0, query.before ?? null);
    if (window === null) return { hits: [], total: 0, terms: terms.terms, older: null };
    const older = window.low > 0 ? window.low : null;
    // bm25 weights follow the columns: message_id (0), title 3, text 2, author 1 (FTS5 counts a title occurrence as 3, a text one as 2, one in the
    // author's name as 1; length normalization uses the whole row). bm25 is lower for better
    // matches, so the score is its opposite. bm25 only works in the full-text scan itself, hence
    // the materialized step.
    // Ties on score are broken by the message's activity date, which only its row holds. Rather
    // than read the row of every hit (13,828 for the most common word of the benchmark's big
    // group: 250 ms, against 11 ms for the match itself), only hits scoring at least the
    // `limit`-th best score are joined: the others cannot be on the page. The total is the number
    // of hits, as the terms are the group's own (its prefix), and a message leaves the index when it
    // becomes a placeholder.
    // The hits are FTS rowids: reading each hit's `message_id` from the FTS content would cost
    // another 30 ms for that word; message_search_rows maps the few joined ones to their message.
    // The join reads each row by primary key and checks group and placeholder again, so one left
    // in the index by mistake is still never shown. CROSS JOIN fixes that order: left to itself, SQLite's planner walks
    // the whole group through messages_group_front and probes the hits, which took 110 ms for a
    // word with 22 hits in a group of 100,000 messages (bench, full scale) instead of 3 ms.
    // The page's rows are then read again by primary key for the answer's columns and each one's
    // count of direct replies, after the cut: hits tied with the last score are more than the page.
    const { rows } = await sql<HitMessage & { score: number; total: number }>`
      with hits as materialized (
        select rowid as id, -bm25(message_search, 0, 3, 2, 1) as score
        from message_search
        where message_search match ${ftsQuery(query.groupId, terms, window.low, window.top)}
      ),
      cutoff as (select score from hits order by score desc limit 1 offset ${Math.max(query.limit - 1, 0)}),
      page as materialized (
        select r.message_id, hits.score, m.last_activity_date
        from hits
        cross join message_search_rows r on r.id = hits.id
        cross join messages m on m.id = r.message_id
        where hits.score >= coalesce((select score from cutoff), -1e308)
          and m.group_id = ${query.groupId} and m.is_deleted = 0
        order by hits.score desc, m.last_activity_date desc, m.id desc
        limit ${query.limit}
      )
      select ${hitColumns}, page.score, (select count(*) from hits) as total
      from page
      cross join messages m on m.id = page.message_id
      order by page.score desc, page.last_activity_date desc, page.message_id desc`.execute(db);
    return {
      hits: rows.map(({ score, total: _total, ...message }) => ({ message, score })),
      total: rows[0]?.total ?? 0,
      terms: terms.terms,
      older,
    };
  }
}
