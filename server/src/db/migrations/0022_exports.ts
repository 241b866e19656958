import { sql, type Kysely } from 'kysely';

// Exports (issue 22, part 3; docs/api §11.12).
//
// exports: one row per export a member asked for. `state` is building, ready or failed; the zip
// lives in the FileStore under `storage_key` (set once ready) until `expires_at`, when housekeeping
// deletes the row and the bytes. Rows go with their user by foreign key (the bytes are removed by
// account deletion's caller, see docs/decisions.md "Exports").
//
// Two indexes on messages let an export walk a member's writing, or a group's, in pages of
// (created_at, id) instead of sorting the whole set.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('exports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text')
    .addColumn('size', 'bigint')
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .addColumn('expires_at', 'bigint')
    .execute();
  // A user's list, newest first, and the limits (the latest one, the one building).
  await db.schema.createIndex('exports_user_created').on('exports').columns(['user_id', 'created_at']).execute();
  // One export building at a time per user, also when two requests race (the service checks first,
  // for the readable 409; this is the guard).
  await db.schema
    .createIndex('exports_one_building')
    .unique()
    .on('exports')
    .column('user_id')
    .where(sql.ref('state'), '=', 'building')
    .execute();
  // Housekeeping finds expired exports by time.
  await db.schema.createIndex('exports_expiry').on('exports').column('expires_at').execute();

  await db.schema
    .createIndex('messages_author_created')
    .on('messages')
    .columns(['author_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('messages_group_created')
    .on('messages')
    .columns(['group_id', 'created_at', 'id'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
