import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { prepared } from '../db/prepared.js';
import type { Tx } from '../db/transaction.js';

/** Messages read and re-indexed per round when an author's name changes. */
export const REINDEX_CHUNK = 500;

type IndexContext = Pick<AppContext, 'db' | 'search'>;

/**
 * The first key of the PostgreSQL advisory locks that order an author's message writes with their
 * renames ("an" in ASCII); the second is a hash of the user id. Migration 0027's `kith_author_name`
 * writes it out (24942): the two must stay the same. Two-key locks are a key space of
 * their own, apart from the single-key instance and first-run locks.
 */
const AUTHOR_LOCK_SPACE = 0x616e;

/**
 * The name to index a new or edited message under (docs/api §10.7: the author's *current* name),
 * read inside the writing transaction. On PostgreSQL the writer first takes the author's advisory
 * lock in shared mode; a rename or an account deletion takes it exclusively (`reindexAuthor`): either
 * this write waits for it and then reads the new name, or it waits for this write and then sees the
 * message. So no message stays indexed under a stale name. Writes by one author do not wait for each
 * other, and, unlike a lock on the user's row, this one does not make the row's other updates (the
 * activity date each write records) wait for their posts. Call it before the transaction locks
 * anything else. Both steps are one round trip, `kith_author_name` (migration 0027; its lock key is
 * AUTHOR_LOCK_SPACE). SQLite runs one write transaction at a time, so reading in the transaction is
 * enough there. `null` when the user no longer exists.
 */
export async function currentAuthorName(ctx: IndexContext, tx: Tx, userId: string): Promise<string | null> {
  if (ctx.db.dialect === 'postgres') {
    const { rows } = await sql<{ name: string | null }>`select kith_author_name(${userId}) as name`.execute(tx);
    return rows[0]?.name ?? null;
  }
  const [row] = await userName(tx, userId);
  return row?.name ?? null;
}

// Prepared (db/prepared.ts): every post on SQLite reads it.
const userName = prepared((db, userId: string) => db.selectFrom('users').select('name').where('id', '=', userId));

/**
 * Re-indexes every message of an author under `name` (their new name, or `null` when the account is
 * being deleted: docs/api §10.4, "no longer by the author's name"), inside the caller's
 * transaction. Placeholders have no author and are never indexed. Call it after the rename's
 * update, or before the account's row is deleted (the foreign key then nulls `author_id`).
 *
 * Cost: on PostgreSQL one lock query, then one query for the ids, then per 500 messages one read
 * and the index write (one statement on PostgreSQL, three per 200 messages on SQLite). Returns the
 * number of messages re-indexed.
 */
export async function reindexAuthor(ctx: IndexContext, tx: Tx, userId: string, name: string | null): Promise<number> {
  if (ctx.db.dialect === 'postgres') {
    // Waits for message writes that read the old name (currentAuthorName) and makes later ones
    // wait for this transaction, then read the name it leaves.
    await sql`select pg_advisory_xact_lock(${sql.lit(AUTHOR_LOCK_SPACE)}, hashtext(${userId}))`.execute(tx);
  }
  // Ids first (through the messages_author index), then the rows page by page, so a prolific
  // author's texts are never all in memory at once.
  const ids = (
    await tx.selectFrom('messages').select('id').where('author_id', '=', userId).where('is_deleted', '=', 0).execute()
  ).map((row) => row.id);
  for (let i = 0; i < ids.length; i += REINDEX_CHUNK) {
    const rows = await tx
      .selectFrom('messages')
      .select(['id', 'group_id', 'title', 'text'])
      .where('id', 'in', ids.slice(i, i + REINDEX_CHUNK))
      .where('author_id', '=', userId)
      .where('is_deleted', '=', 0)
      .execute();
    await ctx.search.upsert(
      tx,
      rows.map((row) => ({ id: row.id, groupId: row.group_id, title: row.title, text: row.text, authorName: name })),
    );
  }
  return ids.length;
}
