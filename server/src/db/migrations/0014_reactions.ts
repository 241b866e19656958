import type { Kysely } from 'kysely';

// Reactions (issue 20): one emoji of one user on one message. A user may use several emoji on the
// same message but each once (the unique key, which also makes adding the same one twice a no-op).
// The rows go with their message or their user by foreign key, as bookmarks do; a message turned
// into a placeholder loses them in messages/queries.ts (makePlaceholder).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('reactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('emoji', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('reactions_message_user_emoji', ['message_id', 'user_id', 'emoji'])
    .execute();
  // The unique key starts with message_id, so it is also the index of a message's (and of a page of
  // cards') summaries; account deletion finds a user's rows by this one.
  await db.schema.createIndex('reactions_user').on('reactions').column('user_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
