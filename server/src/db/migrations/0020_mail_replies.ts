import type { Kysely } from 'kysely';

// Reply by e-mail (issue 21). `reply_addresses`: the short token of a reply address names one row,
// which says whose reply it is and to which message; an address local part holds at most 64
// characters, too few for two UUIDs, an expiry and a signature (docs/decisions.md). One row per user
// and message, reused by every mail about that message, its expiry moved forward each time.
// `received_replies`: the Message-IDs already taken in (hashed with their reply address), so a mail
// delivered twice makes one comment, and whose they were: the hourly limit of replies per user is
// counted here, since the pipe command is a new process for every mail. Pruned after some days.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('reply_addresses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('reply_addresses_user_message', ['user_id', 'message_id'])
    .execute();
  // Messages are deleted by id: the cascade finds their addresses through this index.
  await db.schema.createIndex('reply_addresses_message').on('reply_addresses').column('message_id').execute();
  await db.schema.createIndex('reply_addresses_expiry').on('reply_addresses').column('expires_at').execute();

  await db.schema
    .createTable('received_replies')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('received_replies_user_time')
    .on('received_replies')
    .columns(['user_id', 'received_at'])
    .execute();
  await db.schema.createIndex('received_replies_time').on('received_replies').column('received_at').execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
