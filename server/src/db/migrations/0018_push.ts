import type { Kysely } from 'kysely';

// Web Push (issue 21, docs/api §11.9).
//
// users: what a user wants pushed (`data.push_notifications`: all, mentions_replies, none), their
// quiet hours ("HH:MM-HH:MM", "" for none) and time zone, as the other `data` keys: NULL when never
// set. `push_cursor` is the creation time (ms) of the newest notification a push job has dealt
// with (pushed, or skipped because it was seen live or fell in quiet hours): the next job looks
// only at newer ones, so each notification is pushed at most once.
//
// push_subscriptions: one row per device (a browser's PushSubscription). The endpoint is unique: a
// device subscribed again, or by someone else on a shared tablet, updates the one row. Rows go with
// their user by foreign key.
//
// push_presence: the browsers that reported Kith focused, each for 90 seconds (expires_at). In the
// database rather than in memory so that every process of the scale-out mode sees the same ones.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('push_notifications', 'text').execute();
  await db.schema.alterTable('users').addColumn('quiet_hours', 'text').execute();
  await db.schema.alterTable('users').addColumn('time_zone', 'text').execute();
  await db.schema.alterTable('users').addColumn('push_cursor', 'bigint').execute();

  await db.schema
    .createTable('push_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('endpoint', 'text', (c) => c.notNull().unique())
    .addColumn('p256dh', 'text', (c) => c.notNull())
    .addColumn('auth', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_push_at', 'bigint')
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // A user's devices: the list, the per-user limit, and "who has devices" when notifications are made.
  await db.schema.createIndex('push_subscriptions_user').on('push_subscriptions').column('user_id').execute();

  await db.schema
    .createTable('push_presence')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('device', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('push_presence_pk', ['user_id', 'device'])
    .execute();
  // Expired reports are swept by time.
  await db.schema.createIndex('push_presence_expiry').on('push_presence').column('expires_at').execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
