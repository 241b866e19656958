import type { Kysely } from 'kysely';

// Messages (posts and replies at any depth) and bookmarks. Designed for a million messages: every
// list the API serves walks an index in its own order.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('group_id', 'text', (c) => c.notNull().references('groups.id').onDelete('cascade'))
    // Null once the author deleted their account (docs/api §10.4) and on placeholders.
    .addColumn('author_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('parent_id', 'text')
    // The top-level post of the thread (itself for a post): whole-thread deletes and counts.
    .addColumn('root_id', 'text', (c) => c.notNull())
    // Ancestor ids as a JSON array, nearest parent first, root last ([] for a post).
    .addColumn('lineage', 'text', (c) => c.notNull().defaultTo('[]'))
    // `data` keys that were never set stay null (and are missing from the answer).
    .addColumn('title', 'text')
    .addColumn('text', 'text')
    .addColumn('no_embed', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_activity_date', 'bigint', (c) => c.notNull())
    .addColumn('is_in_front', 'integer', (c) => c.notNull())
    .addColumn('is_deleted', 'integer', (c) => c.notNull().defaultTo(0))
    // The active public link (docs/api §6.6); null when there is none.
    .addColumn('public_token', 'text', (c) => c.unique())
    .execute();
  // The group page and the feed: front messages of a group, newest activity first.
  await db.schema
    .createIndex('messages_group_front')
    .on('messages')
    .columns(['group_id', 'is_in_front', 'last_activity_date', 'id'])
    .execute();
  // Children of a message, oldest first.
  await db.schema.createIndex('messages_parent').on('messages').columns(['parent_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('messages_root').on('messages').column('root_id').execute();
  // Account deletion nulls the author; visibility checks look up messages by author.
  await db.schema.createIndex('messages_author').on('messages').columns(['author_id', 'group_id']).execute();

  await db.schema
    .createTable('bookmarks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('bookmarks_user_message', ['user_id', 'message_id'])
    .execute();
  // The owner's list, newest first.
  await db.schema
    .createIndex('bookmarks_user_created')
    .on('bookmarks')
    .columns(['user_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('bookmarks_message').on('bookmarks').column('message_id').execute();

  // The feed's "something new" mark reads a user's unread notifications of one group.
  await db.schema
    .createIndex('notifications_unread')
    .on('notifications')
    .columns(['user_id', 'read', 'from_group_id', 'created_at'])
    .execute();
  // Notifications about a message go when it goes (docs/api §6.4).
  await db.schema.createIndex('notifications_target').on('notifications').column('target').execute();
  await db.schema.createIndex('notifications_from_message').on('notifications').column('from_message_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
