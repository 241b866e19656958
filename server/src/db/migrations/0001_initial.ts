import type { Kysely } from 'kysely';

// Migrations are immutable once landed: change the schema with a new file, never by editing this one.
// Types are chosen to mean the same on SQLite and PostgreSQL: text ids, bigint millisecond times,
// integer 0/1 booleans.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('kith_meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('login', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('api_key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('api_key_enc', 'text', (c) => c.notNull())
    .addColumn('api_key_version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('avatar_id', 'text')
    .addColumn('default_group_id', 'text')
    .addColumn('notification_emails', 'text')
    .addColumn('lang', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_activity_date', 'bigint', (c) => c.notNull())
    .execute();
  // Digest runs pick users by frequency.
  await db.schema.createIndex('users_notification_emails').on('users').column('notification_emails').execute();

  await db.schema
    .createTable('groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_key', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_activity_date', 'bigint', (c) => c.notNull())
    .addColumn('emptied_at', 'bigint')
    .execute();
  await db.schema.createIndex('groups_name').on('groups').column('name').execute();

  await db.schema
    .createTable('memberships')
    .addColumn('group_id', 'text', (c) => c.notNull().references('groups.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('joined_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['group_id', 'user_id'])
    .execute();
  // "My groups" in join order; the primary key already serves "members of a group".
  await db.schema.createIndex('memberships_user').on('memberships').columns(['user_id', 'joined_at']).execute();

  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('read', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('from_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('from_group_id', 'text', (c) => c.references('groups.id').onDelete('cascade'))
    .addColumn('from_message_id', 'text')
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // The list is "newest first" per owner.
  await db.schema
    .createIndex('notifications_user_created')
    .on('notifications')
    .columns(['user_id', 'created_at', 'id'])
    .execute();
  // Leaving a group deletes the leaver's notifications from it.
  await db.schema
    .createIndex('notifications_user_group')
    .on('notifications')
    .columns(['user_id', 'from_group_id'])
    .execute();
  await db.schema.createIndex('notifications_from_user').on('notifications').column('from_user_id').execute();
  // Housekeeping removes notifications older than a year across all users.
  await db.schema.createIndex('notifications_created').on('notifications').column('created_at').execute();
  await db.schema.createIndex('notifications_from_group').on('notifications').column('from_group_id').execute();

  await db.schema
    .createTable('password_reset_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('password_reset_keys_user')
    .on('password_reset_keys')
    .columns(['user_id', 'created_at'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
