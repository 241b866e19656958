import { sql, type Kysely } from 'kysely';

// Notification e-mail digests (src/features/digests/).
export async function up(db: Kysely<unknown>): Promise<void> {
  // When a notification went out in a digest (ms); null = not mailed yet. A digest lists the unread
  // ones still null and sets it in the transaction that queues the mail, so nothing is sent twice.
  await db.schema.alterTable('notifications').addColumn('emailed_at', 'bigint').execute();
  // A digest run looks up, per user, the unread notifications not mailed yet. Partial: read or
  // mailed notifications (nearly all of them) leave the index.
  await db.schema
    .createIndex('notifications_digest_pending')
    .on('notifications')
    .columns(['user_id', 'created_at'])
    .where(sql.ref('read'), '=', 0)
    .where(sql.ref('emailed_at'), 'is', null)
    .execute();
  // The last scheduled time each frequency has been run for. A process claims a run by moving this
  // forward in one conditional UPDATE, so one process sends it even when several share the database,
  // and a run missed while the server was down is found and done at the next start.
  await db.schema
    .createTable('digest_runs')
    .addColumn('frequency', 'text', (c) => c.primaryKey())
    .addColumn('slot', 'bigint', (c) => c.notNull())
    .execute();
  // Users by frequency: `users_notification_emails` exists since 0001.
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
