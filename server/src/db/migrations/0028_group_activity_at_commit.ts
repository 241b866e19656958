import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';

// PostgreSQL: a new message moves its group's activity date up at the commit, in the trigger that
// counts the group's front messages (migrations 0009, 0026), instead of in a statement of the post
// (issue 23, posting on PostgreSQL). Written by the post, the update locked the group's row from
// that statement to the commit, across a round trip to the server and back, and every other post to
// the group waited that long; at the commit the lock is held for the commit only. The date only
// moves up (`greatest`): posts committing out of order leave the latest. SQLite has one writer at a
// time, and the post writes the date itself there (messages/service.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === 'sqlite') return;
  await sql`
    create or replace function kith_messages_front_count() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        update groups
        set front_count = front_count + (case when new.is_in_front = 1 then 1 else 0 end),
          last_activity_date = greatest(last_activity_date, new.last_activity_date)
        where id = new.group_id;
        return null;
      end if;
      if tg_op = 'UPDATE' and old.is_in_front = new.is_in_front and old.group_id = new.group_id then
        return null;
      end if;
      if tg_op in ('UPDATE', 'DELETE') and old.is_in_front = 1 then
        update groups set front_count = front_count - 1 where id = old.group_id;
      end if;
      if tg_op = 'UPDATE' and new.is_in_front = 1 then
        update groups set front_count = front_count + 1 where id = new.group_id;
      end if;
      return null;
    end $$`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
