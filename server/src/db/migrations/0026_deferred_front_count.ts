import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';

// PostgreSQL: the trigger of migration 0009 that counts a group's front messages runs at the end of
// the transaction instead of at each row (issue 23, docs/decisions.md). Run at the insert, its update
// of the group's row held that row's lock from a post's first statement to its commit, and every
// other post to the group waited that long: posts to one group went one at a time. Deferred, the
// lock is taken at the commit and held for the commit only. The counts stay exact: the trigger sees
// the same rows, later. SQLite has one writer at a time and keeps its triggers.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === 'sqlite') return;
  await sql`drop trigger messages_front_count on messages`.execute(db);
  await sql`
    create constraint trigger messages_front_count
    after insert or delete or update of is_in_front, group_id on messages
    deferrable initially deferred
    for each row execute function kith_messages_front_count()`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
