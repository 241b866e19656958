import type { Kysely } from 'kysely';

// The page a user's client opens first (`data.default_page`: default_group or feed, the values of
// Zusam 0.6.1), kept in the account so it follows them to every device. NULL: never chosen, which
// means the default group, as before. A column of its own, because `default_group` must stay a
// group id for the 0.5.6 client.
//
// No index: the all-groups feed (features/messages/all-groups-feed.ts) reads each group's front
// messages through `messages_group_front` (migration 0002) and merges them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('default_page', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
