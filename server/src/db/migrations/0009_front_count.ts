import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';

// The number of a group's front messages (docs/api §5.4 `totalItems`, §11.1), kept on the group.
// Counting them on every group page and feed request cost about 1.5 ms at 100,000 messages, most of
// each request (bench/README.md). Triggers on `messages` keep it exact on every path that inserts,
// deletes, publishes or unpublishes a message, including a group's cascade and bulk loads, so no
// service has to remember it. Existing groups are counted here once.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('groups')
    .addColumn('front_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`
    update groups set front_count =
      (select count(*) from messages m where m.group_id = groups.id and m.is_in_front = 1)`.execute(db);
  if (engineOf(db) === 'sqlite') await upSqlite(db);
  else await upPostgres(db);
}

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`
    create trigger messages_front_insert after insert on messages
    when new.is_in_front = 1
    begin
      update groups set front_count = front_count + 1 where id = new.group_id;
    end`.execute(db);
  await sql`
    create trigger messages_front_delete after delete on messages
    when old.is_in_front = 1
    begin
      update groups set front_count = front_count - 1 where id = old.group_id;
    end`.execute(db);
  await sql`
    create trigger messages_front_update after update of is_in_front, group_id on messages
    when old.is_in_front <> new.is_in_front or old.group_id <> new.group_id
    begin
      update groups set front_count = front_count - old.is_in_front where id = old.group_id;
      update groups set front_count = front_count + new.is_in_front where id = new.group_id;
    end`.execute(db);
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function kith_messages_front_count() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and old.is_in_front = new.is_in_front and old.group_id = new.group_id then
        return null;
      end if;
      if tg_op in ('UPDATE', 'DELETE') and old.is_in_front = 1 then
        update groups set front_count = front_count - 1 where id = old.group_id;
      end if;
      if tg_op in ('UPDATE', 'INSERT') and new.is_in_front = 1 then
        update groups set front_count = front_count + 1 where id = new.group_id;
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger messages_front_count
    after insert or delete or update of is_in_front, group_id on messages
    for each row execute function kith_messages_front_count()`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
