import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

type Q = Kysely<Database>;

/** A stored reaction (migration 0014). The summaries are read by messages/queries.ts `reactionViewsOf`. */
export interface ReactionRow {
  id: string;
  message_id: string;
  user_id: string;
  emoji: string;
  created_at: number;
}

/** Writes a reaction unless the user already used that emoji on that message; true when it was written. */
export async function insertReaction(db: Q, row: ReactionRow): Promise<boolean> {
  const inserted = await db
    .insertInto('reactions')
    .values(row)
    .onConflict((oc) => oc.columns(['message_id', 'user_id', 'emoji']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** A reaction of the message `messageId`, by id. */
export function findReactionOfMessage(db: Q, messageId: string, id: string): Promise<ReactionRow | undefined> {
  return db
    .selectFrom('reactions')
    .selectAll()
    .where('id', '=', id)
    .where('message_id', '=', messageId)
    .executeTakeFirst();
}

export async function deleteReaction(db: Q, id: string): Promise<void> {
  await db.deleteFrom('reactions').where('id', '=', id).execute();
}

/**
 * Whether `recipientId` already has a `new_reaction` notification about `messageId` from
 * `reactorId` (walks the notifications_target index: a message's notifications).
 */
export async function hasReactionNotification(
  db: Q,
  recipientId: string,
  messageId: string,
  reactorId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('notifications')
    .select('id')
    .where('target', '=', messageId)
    .where('type', '=', 'new_reaction')
    .where('user_id', '=', recipientId)
    .where('from_user_id', '=', reactorId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
