import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';
import { ftsRow } from '../../search/sqlite-fts.js';

// Both engines: a group's search index is cut into slices by age, and a search reads a window of
// the newest slices (issue 23, target 7; src/search/search-index.ts, docs/decisions.md). Before, a
// word's cost grew with the group: the most common word of a group of 1,000,000 messages took 20
// times as long as in one of 100,000, as every hit was ranked and counted.
//
// - `groups.messages_posted` counts the messages ever posted to the group (replies and deleted ones
//   included); the insert triggers keep it, SQLite's at each insert and PostgreSQL's at the commit
//   as for the front count (0026, 0028). Existing groups start at their number of message rows.
// - Each index row has a `slice`: the group's count when the message was first indexed, divided by
//   SLICE. Existing messages are numbered here by creation date.
// - Every indexed word carries its slice (4 hex digits) after the group's digits: on SQLite in the
//   stored tokens, so the FTS table is written again from the messages (it is contentless: its
//   words cannot be read back); on PostgreSQL in the index expression, so the stored documents stay
//   and only the GIN index is built again.
//
// SLICE is search-index.ts's SEARCH_SLICE_MESSAGES as this migration landed: the rows keep the
// slices numbered with it.
const SLICE = 8192;
const MAX_SLICE = 0xffff;
/** Index rows written per statement while the SQLite table is rebuilt. */
const REBUILD_BATCH = 500;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === 'sqlite') await upSqlite(db);
  else await upPostgres(db);
}

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`alter table groups add column messages_posted integer not null default 0`.execute(db);
  await sql`
    update groups set messages_posted = (select count(*) from messages m where m.group_id = groups.id)`.execute(db);
  // The trigger of 0029, counting every insert too.
  await sql`drop trigger messages_front_insert`.execute(db);
  await sql`
    create trigger messages_front_insert after insert on messages
    begin
      update groups
      set front_count = front_count + (new.is_in_front = 1),
        messages_posted = messages_posted + 1,
        last_activity_date = max(last_activity_date, new.last_activity_date)
      where id = new.group_id;
    end`.execute(db);

  await sql`alter table message_search_rows add column slice integer not null default 0`.execute(db);
  await sql`
    with numbered as (
      select id, (row_number() over (partition by group_id order by created_at, id) - 1) / ${sql.lit(SLICE)} as slice
      from messages
    )
    update message_search_rows set slice = min(numbered.slice, ${sql.lit(MAX_SLICE)})
    from numbered
    where numbered.id = message_search_rows.message_id and numbered.slice > 0`.execute(db);

  // As in 0011: the trigger names `message_search` in its body, so it goes while the table is
  // rebuilt and comes back unchanged. FTS5 (SQLite 3.50) neither renames nor drops the shadow table
  // of a contentless table's unindexed column (`_content`), and refuses to drop it while its table
  // exists: the old table is renamed away first, then the stray shadow table is dropped, and the old
  // table once the new one is full. Prefix indexes of 2 and 3 characters after the 36 of the scope
  // (group and slice).
  await sql`drop trigger message_search_rows_delete`.execute(db);
  await sql`alter table message_search rename to message_search_0029`.execute(db);
  await sql`drop table if exists message_search_content`.execute(db);
  await sql`
    create virtual table message_search using fts5(
      message_id unindexed,
      title,
      text,
      author,
      tokenize = "unicode61 remove_diacritics 2 tokenchars '#'",
      prefix = '38 39',
      content = '',
      contentless_delete = 1,
      contentless_unindexed = 1
    )`.execute(db);
  // Every live message again, with the application's tokens (src/search/sqlite-fts.ts), a batch at
  // a time so that a large instance's texts are never all in memory.
  let after = 0;
  for (;;) {
    const { rows } = await sql<{
      row_id: number;
      slice: number;
      id: string;
      group_id: string;
      title: string | null;
      text: string | null;
      author_name: string | null;
    }>`
      select r.id as row_id, r.slice, m.id, m.group_id, m.title, m.text, u.name as author_name
      from message_search_rows r
      join messages m on m.id = r.message_id
      left join users u on u.id = m.author_id
      where r.id > ${after}
      order by r.id
      limit ${REBUILD_BATCH}`.execute(db);
    const last = rows.at(-1);
    if (last === undefined) break;
    const values = rows.map((row) =>
      ftsRow(row.row_id, row.slice, {
        id: row.id,
        groupId: row.group_id,
        title: row.title,
        text: row.text,
        authorName: row.author_name,
      }),
    );
    await sql`insert into message_search (rowid, message_id, title, text, author) values ${sql.join(values)}`.execute(
      db,
    );
    after = last.row_id;
  }
  await sql`drop table message_search_0029`.execute(db);
  await sql`
    create trigger message_search_rows_delete after delete on message_search_rows
    begin
      delete from message_search where rowid = old.id;
    end`.execute(db);
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  await sql`alter table groups add column messages_posted integer not null default 0`.execute(db);
  await sql`
    update groups g set messages_posted = c.n
    from (select group_id, count(*)::integer as n from messages group by group_id) c
    where c.group_id = g.id`.execute(db);
  // The function of 0028, counting every insert too (at the commit, with the front count).
  await sql`
    create or replace function kith_messages_front_count() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        update groups
        set front_count = front_count + (case when new.is_in_front = 1 then 1 else 0 end),
          messages_posted = messages_posted + 1,
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

  // The old index goes first: updating the rows' slices under it would update it too.
  await sql`drop index if exists message_search_scoped`.execute(db);
  await sql`alter table message_search add column slice integer not null default 0`.execute(db);
  await sql`
    update message_search s set slice = least(n.slice, ${sql.lit(MAX_SLICE)})
    from (
      select id, ((row_number() over (partition by group_id order by created_at, id)) - 1) / ${sql.lit(SLICE)} as slice
      from messages
    ) n
    where n.id = s.message_id and n.slice > 0`.execute(db);
  // The scope of a row's lexemes: its group's id and its slice in 4 hex digits; kith_search_scoped
  // (0025) drops the id's dashes. Only pg_catalog is named: an index expression also runs where
  // the search path is empty (pg_restore).
  await sql`
    create or replace function kith_search_scope(group_id text, slice integer) returns text
    language sql immutable parallel safe strict
    as $$ select group_id || lpad(to_hex(slice), 4, '0') $$`.execute(db);
  // The search's query for the slices `low` to `top` of a group: the query scoped to each, ORed
  // (a message lies in one slice, so a row matching every term matches each in its own slice).
  await sql`
    create or replace function kith_search_window(query tsquery, group_id text, low integer, top integer)
    returns tsquery
    language sql immutable parallel safe strict
    as $$
      select string_agg('(' || kith_search_scoped(query, kith_search_scope(group_id, s))::text || ')', ' | '
        order by s desc)::tsquery
      from generate_series(low, top) s
    $$`.execute(db);
  await sql`set local maintenance_work_mem = '256MB'`.execute(db);
  await sql`
    create index message_search_sliced on message_search
    using gin (kith_search_scoped(document, kith_search_scope(group_id, slice)))`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
