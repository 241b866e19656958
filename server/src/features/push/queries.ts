import type { Kysely, Selectable } from 'kysely';
import type { Database, PushSubscriptionsTable } from '../../db/schema.js';
import { inboxOf, viewOf, withNames } from '../inbox/queries.js';

/** Every SQL statement of Web Push (docs/api §11.9, migration 0018). */

type Q = Kysely<Database>;

export type PushSubscriptionRow = Selectable<PushSubscriptionsTable>;

// --- VAPID keys (kith_meta) ---

/** A `kith_meta` value. */
export async function readMeta(db: Q, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('kith_meta').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Writes a `kith_meta` value unless one is there (the first process to start wins). */
export async function insertMetaIfAbsent(db: Q, key: string, value: string): Promise<void> {
  await db
    .insertInto('kith_meta')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}

/** Replaces a `kith_meta` value. */
export async function replaceMeta(db: Q, key: string, value: string): Promise<void> {
  await db
    .insertInto('kith_meta')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

// --- Subscriptions ---

/** A user's devices, oldest first. */
export function listSubscriptions(db: Q, userId: string): Promise<PushSubscriptionRow[]> {
  return db
    .selectFrom('push_subscriptions')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function countSubscriptions(db: Q, userId: string): Promise<number> {
  const row = await db
    .selectFrom('push_subscriptions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findSubscription(db: Q, id: string): Promise<PushSubscriptionRow | undefined> {
  return db.selectFrom('push_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findSubscriptionByEndpoint(db: Q, endpoint: string): Promise<PushSubscriptionRow | undefined> {
  return db.selectFrom('push_subscriptions').selectAll().where('endpoint', '=', endpoint).executeTakeFirst();
}

export async function insertSubscription(db: Q, row: Omit<PushSubscriptionRow, 'failures'>): Promise<void> {
  await db.insertInto('push_subscriptions').values(row).execute();
}

/** A known endpoint subscribed again, possibly by someone else: new keys, owner and label. */
export async function updateSubscription(
  db: Q,
  id: string,
  changes: Pick<PushSubscriptionRow, 'user_id' | 'p256dh' | 'auth' | 'label'>,
): Promise<void> {
  await db
    .updateTable('push_subscriptions')
    .set({ ...changes, failures: 0 })
    .where('id', '=', id)
    .execute();
}

/** Deletes a subscription of `userId`; true when there was one. */
export async function deleteSubscriptionOf(db: Q, id: string, userId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('push_subscriptions')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deleteSubscription(db: Q, id: string): Promise<void> {
  await db.deleteFrom('push_subscriptions').where('id', '=', id).execute();
}

/** Deletes every subscription (they were made with VAPID keys that are gone). */
export async function deleteAllSubscriptions(db: Q): Promise<void> {
  await db.deleteFrom('push_subscriptions').execute();
}

/** A push the service accepted. */
export async function recordPushSuccess(db: Q, id: string, now: number): Promise<void> {
  await db.updateTable('push_subscriptions').set({ last_push_at: now, failures: 0 }).where('id', '=', id).execute();
}

/** A push that failed (and will be tried again). */
export async function recordPushFailure(db: Q, id: string): Promise<void> {
  await db
    .updateTable('push_subscriptions')
    .set((eb) => ({ failures: eb('failures', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

// --- Presence ---

/** Records (or extends) a focused browser of the user until `expiresAt`. */
export async function upsertPresence(db: Q, userId: string, device: string, expiresAt: number): Promise<void> {
  await db
    .insertInto('push_presence')
    .values({ user_id: userId, device, expires_at: expiresAt })
    .onConflict((oc) => oc.columns(['user_id', 'device']).doUpdateSet({ expires_at: expiresAt }))
    .execute();
}

export async function deletePresence(db: Q, userId: string, device: string): Promise<void> {
  await db.deleteFrom('push_presence').where('user_id', '=', userId).where('device', '=', device).execute();
}

/** Sweeps the reports of browsers that stopped reporting. */
export async function deleteExpiredPresence(db: Q, now: number): Promise<void> {
  await db.deleteFrom('push_presence').where('expires_at', '<=', now).execute();
}

/** Whether a browser of the user reported Kith focused and that report is still current. */
export async function hasFocusedPresence(db: Q, userId: string, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('push_presence')
    .select('device')
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

// --- Who is pushed, and what ---

/** Among `userIds`, those with at least one device, and their push choice. */
export function subscribedUsers(
  db: Q,
  userIds: readonly string[],
): Promise<{ id: string; push_notifications: string | null }[]> {
  if (userIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('users')
    .select(['users.id', 'users.push_notifications'])
    .where('users.id', 'in', userIds)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('push_subscriptions')
          .select('push_subscriptions.id')
          .whereRef('push_subscriptions.user_id', '=', 'users.id'),
      ),
    )
    .execute();
}

/** The author of a message, or null (deleted account, or no such message). */
export async function messageAuthorId(db: Q, messageId: string): Promise<string | null> {
  const row = await db.selectFrom('messages').select('author_id').where('id', '=', messageId).executeTakeFirst();
  return row?.author_id ?? null;
}

/** What a push job needs to know about its user. */
export interface PushUser {
  id: string;
  lang: string | null;
  push_notifications: string | null;
  quiet_hours: string | null;
  time_zone: string | null;
  push_cursor: number | null;
}

export function findPushUser(db: Q, userId: string): Promise<PushUser | undefined> {
  return db
    .selectFrom('users')
    .select(['id', 'lang', 'push_notifications', 'quiet_hours', 'time_zone', 'push_cursor'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

/** An unread notification not dealt with by a push job yet, with what its text needs. */
export interface PendingNotification {
  id: string;
  type: string;
  created_at: number;
  target: string;
  title: string;
  data: string;
  from_message_id: string | null;
  from_group_id: string | null;
  from_user_name: string | null;
  from_group_name: string | null;
  /** The author of `from_message_id` (the message commented on). */
  from_message_author_id: string | null;
}

/** How many notifications one push job looks at, at most (a push says "N new", N counted up to this). */
export const PENDING_LIMIT = 500;

/**
 * The user's unread notifications created after `after` (ms; all of them when null), oldest
 * first; notifications read meanwhile are left out, so they are never pushed.
 */
export async function pendingNotifications(
  db: Q,
  userId: string,
  after: number | null,
): Promise<PendingNotification[]> {
  // The same names as the notification list (withNames), plus the author of the message commented
  // on, which that join already reaches.
  let query = withNames(db, inboxOf(db, userId))
    .select('fm.author_id as from_message_author_id')
    .where('n.read', '=', 0);
  if (after !== null) query = query.where('n.created_at', '>', after);
  const rows = await query.orderBy('n.created_at').orderBy('n.base_id').limit(PENDING_LIMIT).execute();
  return rows.map((row) => {
    const { user_id: _owner, event_id: _event, ...pending } = viewOf(row);
    return pending;
  });
}

/** The newest notification time of the user (ms), or null: where a new device's pushes start. */
export async function newestNotificationAt(db: Q, userId: string): Promise<number | null> {
  const row = await inboxOf(db, userId)
    .select((eb) => eb.fn.max('n.created_at').as('at'))
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}

/** Starts the user's push cursor at `at` unless it has one. */
export async function initPushCursor(db: Q, userId: string, at: number): Promise<void> {
  await db
    .updateTable('users')
    .set({ push_cursor: at })
    .where('id', '=', userId)
    .where('push_cursor', 'is', null)
    .execute();
}

/**
 * Moves the user's cursor from `from` to `to` only if it is still at `from`: of two runs of the
 * same job, only one gets to push what lies between. True when this one did.
 */
export async function advancePushCursor(db: Q, userId: string, from: number | null, to: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ push_cursor: to })
    .where('id', '=', userId)
    .where('push_cursor', from === null ? 'is' : '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
