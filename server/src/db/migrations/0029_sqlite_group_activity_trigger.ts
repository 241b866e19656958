import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';

// SQLite: a new message moves its group's activity date up in the trigger that counts the group's
// front messages (migration 0009), as PostgreSQL's does since migration 0028. The post no longer
// writes the date itself on one engine only (messages/service.ts): one rule, in the schema, on both.
// The trigger now runs for replies too (they move the group up as well, docs/api §10.2) and counts
// only front messages, as before. The date only moves up, as with PostgreSQL's `greatest`.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) !== 'sqlite') return;
  await sql`drop trigger messages_front_insert`.execute(db);
  await sql`
    create trigger messages_front_insert after insert on messages
    begin
      update groups
      set front_count = front_count + (new.is_in_front = 1),
        last_activity_date = max(last_activity_date, new.last_activity_date)
      where id = new.group_id;
    end`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
