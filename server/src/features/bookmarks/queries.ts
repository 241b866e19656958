import type { Kysely } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';

type Q = Kysely<Database>;

/** A stored bookmark. */
export interface BookmarkRow {
  id: string;
  user_id: string;
  message_id: string;
  created_at: number;
}

/** Writes a bookmark unless the user already bookmarked that message; true when it was written. */
export async function insertBookmark(db: Q, row: BookmarkRow): Promise<boolean> {
  const inserted = await db
    .insertInto('bookmarks')
    .values(row)
    .onConflict((oc) => oc.columns(['user_id', 'message_id']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** The user's bookmark of a message, which must exist. */
export function loadBookmark(db: Q, userId: string, messageId: string): Promise<BookmarkRow> {
  return db
    .selectFrom('bookmarks')
    .selectAll()
    .where('user_id', '=', userId)
    .where('message_id', '=', messageId)
    .executeTakeFirstOrThrow();
}

/** Deletes a bookmark if it belongs to `userId`; true when one was deleted. */
export async function deleteOwnBookmark(db: Q, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('bookmarks').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

const readableBookmarks = prepared(
  (db, userId: string, limit: number) =>
    db
      .selectFrom('bookmarks as b')
      .innerJoin('messages as m', 'm.id', 'b.message_id')
      .innerJoin('memberships as ms', (join) =>
        join.onRef('ms.group_id', '=', 'm.group_id').on('ms.user_id', '=', userId),
      )
      .select(['b.id', 'b.user_id', 'b.message_id', 'b.created_at'])
      .where('b.user_id', '=', userId)
      .where('m.is_deleted', '=', 0)
      .orderBy('b.created_at', 'desc')
      .orderBy('b.id', 'desc')
      .limit(limit),
  { memo: true },
);

/**
 * The user's bookmarks of messages that are not deleted, in groups they still belong to, newest
 * first (at most `limit`).
 */
export function listReadableBookmarks(db: Q, userId: string, limit: number): Promise<BookmarkRow[]> {
  return readableBookmarks(db, userId, limit);
}
