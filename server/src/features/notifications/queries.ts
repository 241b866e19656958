import { sql, type Expression, type Insertable, type Kysely, type SqlBool } from 'kysely';
import type { Database, NotificationsTable } from '../../db/schema.js';
import { recipientId } from './ids.js';

type Q = Kysely<Database>;

/**
 * Where a user's notifications live (migration 0024, docs/decisions.md "Issue 23"): personal ones
 * (mentions, reactions, global) are rows of `notifications`; those sent to a whole group are one
 * `notification_events` row each, which reaches the members whose membership began at or before
 * it, but its actor, with the member's state (`notification_states`) only where it differs from
 * unread, listed and unmailed. Both read as one list here, in the columns of the old rows:
 * `kind` says which, `base_id` is the stored id (the event's for events, recipientId gives the
 * member's).
 */
function personalBranch(db: Q, user: string | Expression<string>) {
  return db
    .selectFrom('notifications as p')
    .where('p.user_id', '=', user)
    .select([
      sql<string>`'p'`.as('kind'),
      'p.id as base_id',
      'p.user_id',
      'p.type',
      'p.created_at',
      'p.read',
      'p.emailed_at',
      'p.target',
      'p.data',
      'p.from_user_id',
      'p.from_group_id',
      'p.from_message_id',
      'p.title',
    ]);
}

/**
 * An event read by its member: explicitly (their state), else by their "mark all read" watermark.
 * SQL null (no watermark) compares as unknown, so the event stays unread.
 */
const EVENT_READ = sql<number>`case when s.read is not null then s.read when e.created_at <= me.notifications_read_until then 1 else 0 end`;

/** The events `user` receives, with their state (aliases e, m, me, s), optionally of one group. */
function eventsOf(db: Q, user: string | Expression<string>, groupId?: string) {
  let query = db
    .selectFrom('notification_events as e')
    .innerJoin('memberships as m', (j) =>
      j.onRef('m.group_id', '=', 'e.group_id').onRef('m.joined_at', '<=', 'e.created_at'),
    )
    .innerJoin('users as me', 'me.id', 'm.user_id')
    .leftJoin('notification_states as s', (j) =>
      j.onRef('s.event_id', '=', 'e.id').onRef('s.user_id', '=', 'm.user_id'),
    )
    .where('m.user_id', '=', user)
    .where((eb) => eb.or([eb('e.actor_id', 'is', null), eb('e.actor_id', '!=', eb.ref('m.user_id'))]))
    .where((eb) => eb.or([eb('s.deleted', 'is', null), eb('s.deleted', '=', 0)]));
  if (groupId !== undefined) query = query.where('e.group_id', '=', groupId).where('m.group_id', '=', groupId);
  return query;
}

/** `eventsOf` in the columns of `personalBranch`. */
function eventBranch(db: Q, user: string | Expression<string>, groupId?: string) {
  return eventsOf(db, user, groupId).select([
    sql<string>`'e'`.as('kind'),
    'e.id as base_id',
    'm.user_id',
    'e.type',
    'e.created_at',
    EVENT_READ.as('read'),
    's.emailed_at',
    'e.target',
    'e.data',
    'e.from_user_id',
    'e.from_group_id',
    'e.from_message_id',
    'e.title',
  ]);
}

/** A user's whole list (personal rows and events), as one derived table `n`. */
function inboxOf(db: Q, userId: string) {
  return db.selectFrom(personalBranch(db, userId).unionAll(eventBranch(db, userId)).as('n'));
}

/** Unread conditions of an event, for queries on `eventsOf` (no derived table). */
export function unreadEvent(): Expression<SqlBool> {
  return sql<SqlBool>`(s.read = 0 or (s.read is null and (me.notifications_read_until is null or e.created_at > me.notifications_read_until)))`;
}

/** A stored row as its owner sees it: the member's own id for an event. */
interface InboxRow {
  kind: string;
  base_id: string;
  user_id: string;
}

function viewOf<T extends InboxRow>(row: T): Omit<T, 'kind' | 'base_id'> & { id: string; event_id: string | null } {
  const { kind, base_id, ...rest } = row;
  const isEvent = kind === 'e';
  return { ...rest, id: isEvent ? recipientId(base_id, row.user_id) : base_id, event_id: isEvent ? base_id : null };
}

/**
 * Notifications with everything the presenter needs, resolved in one query (names of the user and
 * group that caused them), so a list never costs one query per item. `from` is the rows to show.
 */
function withNames(db: Q, from: ReturnType<typeof inboxOf>) {
  return (
    from
      .leftJoin('users as fu', 'fu.id', 'n.from_user_id')
      .leftJoin('groups as fg', 'fg.id', 'n.from_group_id')
      // The author of the replied-to message, for new_comment's parentAuthorName.
      .leftJoin('messages as fm', 'fm.id', 'n.from_message_id')
      .leftJoin('users as fma', 'fma.id', 'fm.author_id')
      .select([
        'n.kind',
        'n.base_id',
        'n.user_id',
        'n.type',
        'n.created_at',
        'n.read',
        'n.target',
        'n.data',
        'n.from_user_id',
        'n.from_group_id',
        'n.from_message_id',
        'n.title',
        'fu.name as from_user_name',
        'fu.avatar_id as from_user_avatar_id',
        'fg.name as from_group_name',
        'fma.name as parent_author_name',
      ])
  );
}

type NamedRow = Awaited<ReturnType<ReturnType<typeof withNames>['executeTakeFirstOrThrow']>>;
export type NotificationView = ReturnType<typeof viewOf<NamedRow>>;

/** The owner's notifications, newest first. */
export async function listNotifications(
  db: Q,
  userId: string,
  limit: number,
  include: { reactions: boolean } = { reactions: true },
): Promise<NotificationView[]> {
  // Each group's newest events come from its (group, date) index, at most `limit` of each, rather
  // than every event of every group of the user sorted; the groups are the few of one user.
  const groups = await db.selectFrom('memberships').select('group_id').where('user_id', '=', userId).execute();
  let personal = personalBranch(db, userId);
  if (!include.reactions) personal = personal.where('p.type', '!=', 'new_reaction');
  let union = db
    .selectFrom(personal.orderBy('p.created_at', 'desc').orderBy('p.id', 'desc').limit(limit).as('b'))
    .selectAll();
  for (const { group_id } of groups) {
    let branch = eventBranch(db, userId, group_id);
    if (!include.reactions) branch = branch.where('e.type', '!=', 'new_reaction');
    union = union.unionAll(
      db.selectFrom(branch.orderBy('e.created_at', 'desc').orderBy('e.id', 'desc').limit(limit).as('b')).selectAll(),
    );
  }
  const rows = await withNames(db, db.selectFrom(union.as('n')))
    .orderBy('n.created_at', 'desc')
    .orderBy('n.base_id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(viewOf);
}

/** One notification, only if it belongs to `userId` (others answer 404, docs/api §1.8). */
export async function findOwnNotification(db: Q, userId: string, id: string): Promise<NotificationView | undefined> {
  const personal = personalBranch(db, userId).where('p.id', '=', id);
  const event = eventBranch(db, userId).where('e.id', '=', recipientId(id, userId));
  const row = await withNames(db, db.selectFrom(personal.unionAll(event).as('n'))).executeTakeFirst();
  return row === undefined ? undefined : viewOf(row);
}

/** Writes notification rows in one multi-row insert (the caller keeps it under the parameter limits). */
export async function insertNotifications(db: Q, rows: Insertable<NotificationsTable>[]): Promise<void> {
  await db.insertInto('notifications').values(rows).execute();
}

/** Writes a group-wide notification once, and keeps it from `excluded` members (a `deleted` state each). */
export async function insertNotificationEvent(
  db: Q,
  event: Insertable<Database['notification_events']>,
  excluded: readonly string[],
): Promise<void> {
  await db.insertInto('notification_events').values(event).execute();
  if (excluded.length === 0) return;
  await db
    .insertInto('notification_states')
    .values(
      excluded.map((userId) => ({ user_id: userId, event_id: event.id, read: null, deleted: 1, emailed_at: null })),
    )
    .execute();
}

/**
 * Marks the owner's unread notifications created up to `until` (ms) read; how many changed.
 * Personal rows are updated; group events are covered by the user's watermark, and the ones they
 * had marked unread again within it lose that mark.
 */
export async function markReadUntil(db: Q, userId: string, until: number): Promise<number> {
  const personal = await db
    .updateTable('notifications')
    .set({ read: 1 })
    .where('user_id', '=', userId)
    .where('read', '=', 0)
    .where('created_at', '<=', until)
    .executeTakeFirst();
  const events = await eventsOf(db, userId)
    .where('e.created_at', '<=', until)
    .where(unreadEvent())
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  await db
    .updateTable('users')
    .set({ notifications_read_until: until })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('notifications_read_until', 'is', null), eb('notifications_read_until', '<', until)]))
    .execute();
  await db
    .updateTable('notification_states')
    .set({ read: null })
    .where('user_id', '=', userId)
    .where('read', '=', 0)
    .where('event_id', 'in', (eb) => eb.selectFrom('notification_events').select('id').where('created_at', '<=', until))
    .execute();
  return Number(personal.numUpdatedRows) + Number(events.n);
}

/** Sets one notification's read flag. */
export async function setNotificationRead(db: Q, n: NotificationView, read: boolean): Promise<void> {
  if (n.event_id === null) {
    await db
      .updateTable('notifications')
      .set({ read: read ? 1 : 0 })
      .where('id', '=', n.id)
      .execute();
    return;
  }
  await db
    .insertInto('notification_states')
    .values({ user_id: n.user_id, event_id: n.event_id, read: read ? 1 : 0, emailed_at: null })
    .onConflict((oc) => oc.columns(['user_id', 'event_id']).doUpdateSet({ read: read ? 1 : 0 }))
    .execute();
}

/** Deletes one notification (for an event, from its owner's list only). */
export async function deleteOwnNotification(db: Q, n: NotificationView): Promise<void> {
  if (n.event_id === null) {
    await db.deleteFrom('notifications').where('id', '=', n.id).execute();
    return;
  }
  await db
    .insertInto('notification_states')
    .values({ user_id: n.user_id, event_id: n.event_id, read: null, deleted: 1, emailed_at: null })
    .onConflict((oc) => oc.columns(['user_id', 'event_id']).doUpdateSet({ deleted: 1 }))
    .execute();
}

/** Whether a user has an unread notification of one of `types` that no mail has listed yet. */
export async function hasUnmailedNotification(db: Q, userId: string, types: readonly string[]): Promise<boolean> {
  const personal = await db
    .selectFrom('notifications')
    .select('id')
    .where('user_id', '=', userId)
    .where('read', '=', 0)
    .where('emailed_at', 'is', null)
    .where('type', 'in', types)
    .limit(1)
    .executeTakeFirst();
  if (personal !== undefined) return true;
  const event = await eventsOf(db, userId)
    .select('e.id')
    .where(unreadEvent())
    .where('s.emailed_at', 'is', null)
    .where('e.type', 'in', types)
    .limit(1)
    .executeTakeFirst();
  return event !== undefined;
}

/** A user's notifications as a derived table `n` (the digests' and pushes' selections). */
export { inboxOf, eventsOf, viewOf, withNames };
/** Which of `userIds` have their notification e-mails set to `frequency` (`users_notification_emails`). */
export async function usersWithFrequency(db: Q, userIds: string[], frequency: string): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('notification_emails', '=', frequency)
    .where('id', 'in', userIds)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Which of `userIds` get a mention by mail within the immediate delay (docs/api §11.10): on
 * `immediately` without mention mails turned off, or with `mention_emails` `immediately`.
 */
export async function usersMailedMentionsNow(db: Q, userIds: string[]): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('id', 'in', userIds)
    .where((eb) =>
      eb.or([
        eb('mention_emails', '=', 'immediately'),
        eb.and([
          eb('notification_emails', '=', 'immediately'),
          eb.or([eb('mention_emails', 'is', null), eb('mention_emails', '!=', 'none')]),
        ]),
      ]),
    )
    .execute();
  return rows.map((row) => row.id);
}
