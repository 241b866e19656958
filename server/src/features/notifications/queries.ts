import { sql, type Compilable, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { WriteChain } from '../../db/postgres-chain.js';
import { prepared, preparedInsert, preparedQuery, runCompiled } from '../../db/prepared.js';
import type { Database, NotificationsTable } from '../../db/schema.js';
import { recipientId } from '../inbox/ids.js';
import { engineOf } from '../../db/engine.js';
import {
  eventBranch,
  eventsOf,
  newestEventsOfEachGroup,
  personalBranch,
  unreadEvent,
  viewOf,
  withNames,
} from '../inbox/queries.js';

type Q = Kysely<Database>;

type NamedRow = Awaited<ReturnType<ReturnType<typeof withNames>['executeTakeFirstOrThrow']>>;
export type NotificationView = ReturnType<typeof viewOf<NamedRow>>;

/**
 * The list's statement: the owner's newest `limit` personal rows and the newest `limit` events of
 * each of their groups, merged. On SQLite, which has no LATERAL, `groupIds` names the groups, one
 * branch each walking its group's index newest first; on PostgreSQL it is null and one LATERAL
 * branch reads them all (`newestEventsOfEachGroup`).
 */
function listQuery(db: Q, userId: string, limit: number, groupIds: readonly string[] | null, reactions: boolean) {
  let personal = personalBranch(db, userId);
  if (!reactions) personal = personal.where('p.type', '!=', 'new_reaction');
  let union = db
    .selectFrom(personal.orderBy('p.created_at', 'desc').orderBy('p.id', 'desc').limit(limit).as('b'))
    .selectAll();
  if (groupIds === null) {
    union = union.unionAll(newestEventsOfEachGroup(db, userId, limit, reactions ? undefined : 'new_reaction'));
  } else {
    for (const groupId of groupIds) {
      let branch = eventBranch(db, userId, groupId);
      if (!reactions) branch = branch.where('e.type', '!=', 'new_reaction');
      union = union.unionAll(
        db.selectFrom(branch.orderBy('e.created_at', 'desc').orderBy('e.id', 'desc').limit(limit).as('b')).selectAll(),
      );
    }
  }
  return withNames(db, db.selectFrom(union.as('n')))
    .orderBy('n.created_at', 'desc')
    .orderBy('n.base_id', 'desc')
    .limit(limit);
}

// Prepared (db/prepared.ts): building and compiling the union of a user's groups took more of a
// list's CPU than reading its few rows would (issue 23). One per value of `reactions`, which the
// builder must not branch on.
const listedWithReactions = prepared((db, userId: string, limit: number, groupIds: string[] | null) =>
  listQuery(db, userId, limit, groupIds, true),
);
const listedWithoutReactions = prepared((db, userId: string, limit: number, groupIds: string[] | null) =>
  listQuery(db, userId, limit, groupIds, false),
);

const groupIdsOf = prepared((db, userId: string) =>
  db.selectFrom('memberships').select('group_id').where('user_id', '=', userId),
);

/** The owner's notifications, newest first. */
export async function listNotifications(
  db: Q,
  userId: string,
  limit: number,
  include: { reactions: boolean } = { reactions: true },
): Promise<NotificationView[]> {
  // Each group's newest events come from its (group, date) index, at most `limit` of each, rather
  // than every event of every group of the user sorted; the groups are the few of one user.
  const groupIds = engineOf(db) === 'postgres' ? null : (await groupIdsOf(db, userId)).map((g) => g.group_id);
  const list = include.reactions ? listedWithReactions : listedWithoutReactions;
  const rows = await list(db, userId, limit, groupIds);
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

// Prepared (db/prepared.ts): every post writes one.
const insertEvent = preparedInsert('notification_events', [
  'id',
  'group_id',
  'actor_id',
  'type',
  'created_at',
  'target',
  'data',
  'from_user_id',
  'from_group_id',
  'from_message_id',
  'title',
]);

/** Writes a group-wide notification once, and keeps it from `excluded` members (a `deleted` state each). */
export async function insertNotificationEvent(
  db: Q,
  event: Selectable<Database['notification_events']>,
  excluded: readonly string[],
  writes?: WriteChain,
): Promise<void> {
  // With `writes`, queued: on PostgreSQL the states' foreign key on the event is checked at the end
  // of the statement that carries both (db/postgres-chain.ts).
  const write = async (query: Compilable<unknown>) => {
    if (writes === undefined) await runCompiled(db, query.compile());
    else await writes.write(query);
  };
  await write(insertEvent(db, event));
  if (excluded.length === 0) return;
  await write(
    db
      .insertInto('notification_states')
      .values(
        excluded.map((userId) => ({ user_id: userId, event_id: event.id, read: null, deleted: 1, emailed_at: null })),
      ),
  );
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

/** A recipient of a group-wide notification, with what their push and their mail depend on. */
export interface GroupRecipient {
  id: string;
  /** Whether they have a device to push to (a Web Push subscription). */
  hasDevice: boolean;
  push_notifications: string | null;
  notification_emails: string | null;
}

const groupRecipientsQuery = (db: Q, groupId: string, exceptUserId: string) =>
  db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.push_notifications', 'u.notification_emails'])
    .select((eb) =>
      eb
        .exists(
          eb.selectFrom('push_subscriptions as s').select(sql.lit(1).as('one')).whereRef('s.user_id', '=', 'u.id'),
        )
        .as('has_device'),
    )
    .where('m.group_id', '=', groupId)
    .where('m.user_id', '!=', exceptUserId);

const groupRecipientRows = prepared(groupRecipientsQuery);
// The same, as the read that ends a post's chain of writes.
const groupRecipientsChained = preparedQuery(groupRecipientsQuery);

/**
 * The members of a group but `exceptUserId` (the actor, or nobody when null), with their push and
 * mail settings: a post to a group reads its recipients once, for its event, live events, pushes
 * and mails, rather than three times (bench/README.md, posting).
 */
export async function listGroupRecipients(
  db: Q,
  groupId: string,
  exceptUserId: string | null,
  writes?: WriteChain,
): Promise<GroupRecipient[]> {
  // No user id is empty, so '' excludes nobody and the statement keeps one shape.
  const rows =
    writes === undefined
      ? await groupRecipientRows(db, groupId, exceptUserId ?? '')
      : await writes.read(groupRecipientsChained(db, groupId, exceptUserId ?? ''));
  return rows.map((r) => ({
    id: r.id,
    // SQLite answers 0 or 1, PostgreSQL a boolean.
    hasDevice: Boolean(r.has_device),
    push_notifications: r.push_notifications,
    notification_emails: r.notification_emails,
  }));
}
