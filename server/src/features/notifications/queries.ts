import type { Insertable, Kysely } from 'kysely';
import type { Database, NotificationsTable } from '../../db/schema.js';

type Q = Kysely<Database>;

/**
 * Notifications with everything the presenter needs, resolved in one query (names of the user and
 * group that caused them), so a list never costs one query per item.
 */
export function selectNotifications(db: Q) {
  return (
    db
      .selectFrom('notifications as n')
      .leftJoin('users as fu', 'fu.id', 'n.from_user_id')
      .leftJoin('groups as fg', 'fg.id', 'n.from_group_id')
      // The author of the replied-to message, for new_comment's parentAuthorName.
      .leftJoin('messages as fm', 'fm.id', 'n.from_message_id')
      .leftJoin('users as fma', 'fma.id', 'fm.author_id')
      .select([
        'n.id',
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

export type NotificationView = Awaited<ReturnType<ReturnType<typeof selectNotifications>['executeTakeFirstOrThrow']>>;

/** The owner's notifications, newest first. */
export function listNotifications(
  db: Q,
  userId: string,
  limit: number,
  include: { reactions: boolean } = { reactions: true },
): Promise<NotificationView[]> {
  let query = selectNotifications(db).where('n.user_id', '=', userId);
  if (!include.reactions) query = query.where('n.type', '!=', 'new_reaction');
  return query.orderBy('n.created_at', 'desc').orderBy('n.id', 'desc').limit(limit).execute();
}

/** One notification, only if it belongs to `userId` (others answer 404, docs/api §1.8). */
export function findOwnNotification(db: Q, userId: string, id: string): Promise<NotificationView | undefined> {
  return selectNotifications(db).where('n.id', '=', id).where('n.user_id', '=', userId).executeTakeFirst();
}

/** One notification by id, whoever owns it: the routes ask notifications/policy.ts who may see it. */
export function findNotification(db: Q, id: string): Promise<NotificationView | undefined> {
  return selectNotifications(db).where('n.id', '=', id).executeTakeFirst();
}

/** Writes notification rows in one multi-row insert (the caller keeps it under the parameter limits). */
export async function insertNotifications(db: Q, rows: Insertable<NotificationsTable>[]): Promise<void> {
  await db.insertInto('notifications').values(rows).execute();
}

/** Marks the owner's unread notifications created up to `until` (ms) read; how many changed. */
export async function markReadUntil(db: Q, userId: string, until: number): Promise<number> {
  const result = await db
    .updateTable('notifications')
    .set({ read: 1 })
    .where('user_id', '=', userId)
    .where('read', '=', 0)
    .where('created_at', '<=', until)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Sets one notification's read flag. */
export async function setNotificationRead(db: Q, id: string, read: boolean): Promise<void> {
  await db
    .updateTable('notifications')
    .set({ read: read ? 1 : 0 })
    .where('id', '=', id)
    .execute();
}

/** Deletes one notification. */
export async function deleteNotificationById(db: Q, id: string): Promise<void> {
  await db.deleteFrom('notifications').where('id', '=', id).execute();
}

/** Whether a user has an unread notification of one of `types` that no mail has listed yet. */
export async function hasUnmailedNotification(db: Q, userId: string, types: readonly string[]): Promise<boolean> {
  const row = await db
    .selectFrom('notifications')
    .select('id')
    .where('user_id', '=', userId)
    .where('read', '=', 0)
    .where('emailed_at', 'is', null)
    .where('type', 'in', types)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
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
