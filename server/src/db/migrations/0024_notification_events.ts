import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';

/** Types sent to every other member of a group (notifyGroupMembers): stored once per event. */
const GROUP_WIDE = ['new_message', 'new_comment', 'user_joined_group', 'user_left_group', 'group_name_change'];

// Notifications sent to a whole group become one row per event (issue 23, docs/decisions.md): a post
// to a 50-member group wrote 49 rows, each with 8 index entries keyed by user, which was most of a
// post's cost. The recipients of an event are the members of its group whose membership began at
// or before it, but its actor; the rest is per-user state, kept only where it differs from the
// default (unread, not deleted, not mailed). Personal notifications (mentions, reactions, global
// ones) stay in `notifications`, one row per recipient.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Kysely runs SQLite migrations outside a transaction, and this one folds every notification
  // (minutes on a big instance): stopped halfway, it must leave the database as it was (as 0004).
  if (engineOf(db) === 'sqlite') await db.transaction().execute((tx) => createAndConvert(tx));
  else await createAndConvert(db);
}

async function createAndConvert(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notification_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('group_id', 'text', (c) => c.notNull().references('groups.id').onDelete('cascade'))
    // Who acted: never a recipient. No foreign key: a deleted actor is no member either.
    .addColumn('actor_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('from_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('from_group_id', 'text', (c) => c.references('groups.id').onDelete('cascade'))
    .addColumn('from_message_id', 'text')
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // A member's list, unread marks and digests walk their groups' events newest first.
  await db.schema
    .createIndex('notification_events_group_created')
    .on('notification_events')
    .columns(['group_id', 'created_at'])
    .execute();
  // Housekeeping (a year), deleted messages, deleted users.
  await db.schema.createIndex('notification_events_created').on('notification_events').column('created_at').execute();
  await db.schema.createIndex('notification_events_target').on('notification_events').column('target').execute();
  await db.schema
    .createIndex('notification_events_from_message')
    .on('notification_events')
    .column('from_message_id')
    .execute();
  await db.schema
    .createIndex('notification_events_from_user')
    .on('notification_events')
    .column('from_user_id')
    .execute();

  // One member's state of one event, only where it is not the default. `read` null: unread unless
  // the user's read-all watermark (users.notifications_read_until) covers the event; `deleted` 1
  // also keeps out of the list the members an event excluded (the mentioned, who got a mention).
  await db.schema
    .createTable('notification_states')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull().references('notification_events.id').onDelete('cascade'))
    .addColumn('read', 'integer')
    .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('emailed_at', 'bigint')
    .addPrimaryKeyConstraint('notification_states_pk', ['user_id', 'event_id'])
    .execute();
  await db.schema.createIndex('notification_states_event').on('notification_states').column('event_id').execute();

  // "Mark all read up to T" moves this instead of writing a row per event.
  await db.schema.alterTable('users').addColumn('notifications_read_until', 'bigint').execute();

  await convert(db);
}

/**
 * Existing group-wide rows: the rows of one event (same type, time, target, sender, group, thread,
 * title and data) become one event; a recipient's read or mailed row becomes a state, a member the
 * event reaches who had no row (deleted it, or was mentioned) a `deleted` state. A row whose owner
 * the new rule would not reach (left meanwhile, or joined after) stays a personal row.
 */
async function convert(db: Kysely<unknown>): Promise<void> {
  const types = sql.join(GROUP_WIDE.map((t) => sql.lit(t)));
  // Null-safe equality of the columns that identify an event, on both engines.
  const same = sql`e.type = n.type and e.created_at = n.created_at and e.target = n.target and e.data = n.data
    and e.title = n.title and e.group_id = n.from_group_id
    and coalesce(e.from_user_id, '') = coalesce(n.from_user_id, '')
    and coalesce(e.from_message_id, '') = coalesce(n.from_message_id, '')`;
  const reaches = sql`m.group_id = e.group_id and m.joined_at <= e.created_at
    and (e.actor_id is null or e.actor_id <> m.user_id)`;
  await sql`insert into notification_events
      (id, group_id, actor_id, type, created_at, target, data, from_user_id, from_group_id, from_message_id, title)
    select min(id), from_group_id, from_user_id, type, created_at, target, data, from_user_id, from_group_id,
      from_message_id, title
    from notifications
    where type in (${types}) and from_group_id is not null
    group by type, created_at, target, data, from_user_id, from_group_id, from_message_id, title`.execute(db);
  await sql`insert into notification_states (user_id, event_id, read, deleted, emailed_at)
    select n.user_id, e.id, max(case when n.read = 1 then 1 else null end), 0, max(n.emailed_at)
    from notifications n
    join notification_events e on ${same}
    join memberships m on m.user_id = n.user_id and ${reaches}
    where n.read = 1 or n.emailed_at is not null
    group by n.user_id, e.id`.execute(db);
  await sql`insert into notification_states (user_id, event_id, read, deleted, emailed_at)
    select m.user_id, e.id, null, 1, null
    from notification_events e
    join memberships m on ${reaches}
    where not exists (select 1 from notifications n where n.user_id = m.user_id and ${same})`.execute(db);
  await sql`delete from notifications
    where type in (${types}) and exists (
      select 1 from notification_events e
      join memberships m on ${reaches}
      where m.user_id = notifications.user_id and ${sql.raw(
        'e.type = notifications.type and e.created_at = notifications.created_at and e.target = notifications.target ' +
          'and e.data = notifications.data and e.title = notifications.title and e.group_id = notifications.from_group_id ' +
          "and coalesce(e.from_user_id, '') = coalesce(notifications.from_user_id, '') " +
          "and coalesce(e.from_message_id, '') = coalesce(notifications.from_message_id, '')",
      )})`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
