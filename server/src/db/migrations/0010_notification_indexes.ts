import type { Kysely } from 'kysely';

// One index fewer on notifications. Each new post writes a notification per member, and every index
// keyed by user puts those rows on as many different pages: on the posting benchmark they were most
// of the cost of a post (bench/README.md). `notifications_unread` (user, read, group, date) and
// `notifications_user_group` (user, group) become one index (user, group, read, date): the feed's
// "something new" mark reads its first three columns and its order, and leaving a group deletes by
// its first two. Marking all read (user, read, date) now walks the user's rows of
// `notifications_user_created`, a year of them at most.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('notifications_unread').execute();
  await db.schema.dropIndex('notifications_user_group').execute();
  await db.schema
    .createIndex('notifications_user_group_unread')
    .on('notifications')
    .columns(['user_id', 'from_group_id', 'read', 'created_at'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
