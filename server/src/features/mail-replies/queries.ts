import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

type Q = Kysely<Database>;

/** A reply address (migration 0020). */
export interface ReplyAddressRow {
  id: string;
  user_id: string;
  message_id: string;
  expires_at: number;
}

/**
 * The reply address of `userId` for `messageId`, created with `candidateId` when there is none, its
 * expiry moved to `expiresAt` either way; answers the id in use. Safe against a concurrent mail for
 * the same pair: the unique key decides, and both read the same row back.
 */
export async function upsertReplyAddress(
  db: Q,
  candidateId: string,
  userId: string,
  messageId: string,
  expiresAt: number,
): Promise<string> {
  await db
    .insertInto('reply_addresses')
    .values({ id: candidateId, user_id: userId, message_id: messageId, expires_at: expiresAt })
    .onConflict((oc) => oc.columns(['user_id', 'message_id']).doUpdateSet({ expires_at: expiresAt }))
    .execute();
  const row = await db
    .selectFrom('reply_addresses')
    .select('id')
    .where('user_id', '=', userId)
    .where('message_id', '=', messageId)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A reply address by id. */
export function findReplyAddress(db: Q, id: string): Promise<ReplyAddressRow | undefined> {
  return db.selectFrom('reply_addresses').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Deletes reply addresses expired before `before`: past that, a reply gets the unknown-address bounce. */
export async function pruneReplyAddresses(db: Q, before: number): Promise<void> {
  await db.deleteFrom('reply_addresses').where('expires_at', '<', before).execute();
}

/** Records a received mail's key for its user; false when it was already there (a second delivery). */
export async function claimReceivedReply(db: Q, key: string, userId: string, now: number): Promise<boolean> {
  const inserted = await db
    .insertInto('received_replies')
    .values({ key, user_id: userId, received_at: now })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Forgets a claim whose processing failed for a reason that may pass, so a redelivery is taken in. */
export async function releaseReceivedReply(db: Q, key: string): Promise<void> {
  await db.deleteFrom('received_replies').where('key', '=', key).execute();
}

/** Forgets received mails older than `before`. */
export async function pruneReceivedReplies(db: Q, before: number): Promise<void> {
  await db.deleteFrom('received_replies').where('received_at', '<', before).execute();
}

/** How many mails to reply addresses of `userId` were received since `since` (the hourly limit). */
export async function countReceivedReplies(db: Q, userId: string, since: number): Promise<number> {
  const row = await db
    .selectFrom('received_replies')
    .select((eb) => eb.fn.countAll<string | number>().as('count'))
    .where('user_id', '=', userId)
    .where('received_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
