import type { NotificationType } from '@kith/common';
import type { AppContext } from '../../context.js';
import type { WriteChain } from '../../db/postgres-chain.js';
import type { Effects, Tx } from '../../db/transaction.js';
import type { Body } from '../../lib/body.js';
import { invalidField, notFound } from '../../lib/errors.js';
import { newOrderedId, parseId } from '../../lib/ids.js';
import { queuePushes, queuePushesTo } from '../push/queue.js';
import type { UserRow } from '../../db/rows.js';
import { canDeleteNotification, canUpdateNotification } from './policy.js';
import { presentNotification, type NotificationIncludes } from './presenter.js';
import { transaction } from '../../db/transaction.js';
import { recipientId } from '../inbox/ids.js';
import {
  deleteOwnNotification,
  findOwnNotification,
  insertNotificationEvent,
  insertNotifications,
  listGroupRecipients,
  markReadUntil,
  setNotificationRead,
  type GroupRecipient,
  type NotificationView,
} from './queries.js';

/** What a notification says; recipients are chosen by the caller of `notify*`. */
export interface NotificationInput {
  type: NotificationType;
  target: string;
  fromUserId: string | null;
  fromGroupId: string | null;
  fromMessageId: string | null;
  data?: Record<string, string>;
  title?: string;
}

// Stays well under SQLite's and PostgreSQL's bound-parameter limits (11 columns a row).
const INSERT_CHUNK = 500;

/**
 * A notification just created, and whom it is for; `recipient` when the recipients were read with
 * their settings (group-wide ones), so that their pushes and mails need not read them again.
 */
export interface CreatedNotification {
  id: string;
  userId: string;
  recipient?: GroupRecipient;
}

/**
 * Creates one notification per recipient in a few multi-row inserts (never one query per member),
 * and pushes each on its owner's live streams once the transaction has committed.
 */
export async function notifyUsers(
  tx: Tx,
  effects: Effects,
  recipients: string[],
  input: NotificationInput,
  now: number,
): Promise<CreatedNotification[]> {
  const content = contentOf(input, now);
  const rows = recipients.map((userId) => ({ id: newOrderedId(now), user_id: userId, read: 0, ...content }));
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await insertNotifications(tx, rows.slice(i, i + INSERT_CHUNK));
  }
  const created = rows.map((r) => ({ id: r.id, userId: r.user_id }));
  await announce(tx, effects, input, created);
  return created;
}

/** The columns of what a notification says, the same in personal rows and group events. */
function contentOf(input: NotificationInput, now: number) {
  return {
    type: input.type,
    created_at: now,
    target: input.target,
    data: JSON.stringify(input.data ?? {}),
    from_user_id: input.fromUserId,
    from_group_id: input.fromGroupId,
    from_message_id: input.fromMessageId,
    title: input.title ?? '',
  };
}

/**
 * Tells each recipient of new notifications on their live streams once the transaction has
 * committed; their devices hear of it by Web Push a minute later, unless seen live meanwhile.
 */
async function announce(tx: Tx, effects: Effects, input: NotificationInput, created: CreatedNotification[]) {
  for (const n of created) effects.publish({ type: 'notification', userId: n.userId, notificationId: n.id });
  const about = { type: input.type, fromMessageId: input.fromMessageId };
  const known: GroupRecipient[] = [];
  for (const n of created) if (n.recipient !== undefined) known.push(n.recipient);
  if (known.length === created.length) {
    // Read with their settings: only those with a device can be pushed to.
    await queuePushesTo(
      tx,
      effects,
      about,
      known.filter((r) => r.hasDevice),
    );
  } else {
    await queuePushes(
      tx,
      effects,
      about,
      created.map((n) => n.userId),
    );
  }
}

/**
 * Notifies every current member of a group except the person who acted (docs/api §10.1: nobody is
 * notified of their own action) and those of `except` (say, the people a post mentions, who get a
 * `mention` instead). One row, whatever the size of the group (migration 0024): the members of the
 * moment are its recipients by rule, each under an id of their own (ids.ts); only the excluded get
 * a row each. The members are still read, for their live events, pushes and mails. With `writes`
 * (db/postgres-chain.ts), the members are read with the writes it holds, and the event's rows are
 * queued: with the read when nobody is excluded, after it otherwise.
 */
export async function notifyGroupMembers(
  tx: Tx,
  effects: Effects,
  groupId: string,
  actorId: string | null,
  input: NotificationInput,
  now: number,
  except: ReadonlySet<string> = new Set(),
  writes?: WriteChain,
): Promise<CreatedNotification[]> {
  const id = newOrderedId(now);
  const event = { id, group_id: groupId, actor_id: actorId, ...contentOf(input, now) };
  let members: GroupRecipient[];
  if (except.size === 0) {
    // Kept from nobody, the event needs no member list: with `writes`, its row goes in the
    // statement that reads the members.
    await insertNotificationEvent(tx, event, [], writes);
    members = await listGroupRecipients(tx, groupId, actorId, writes);
  } else {
    members = await listGroupRecipients(tx, groupId, actorId, writes);
    const excluded = members.filter((member) => except.has(member.id)).map((member) => member.id);
    await insertNotificationEvent(tx, event, excluded, writes);
  }
  const recipients = members.filter((member) => !except.has(member.id));
  const created = recipients.map((recipient) => ({
    id: recipientId(id, recipient.id),
    userId: recipient.id,
    recipient,
  }));
  await announce(tx, effects, input, created);
  return created;
}

/** A rule of notifications/policy.ts: may this caller do it to this notification? */
type NotificationAbility = (user: UserRow, notification: NotificationView) => boolean;

/**
 * The notification `rawId` names, for an action `ability` allows; anything else is 404, like a
 * notification that does not exist (docs/api §1.8).
 */
export async function loadNotificationFor(
  db: Tx,
  user: UserRow,
  rawId: string,
  ability: NotificationAbility,
): Promise<NotificationView> {
  const id = parseId(rawId);
  // Found among the caller's own (an event's id is per recipient), then checked by the rule.
  const notification = id === null ? undefined : await findOwnNotification(db, user.id, id);
  if (notification === undefined || !ability(user, notification)) throw notFound();
  return notification;
}

/** POST /api/me/notifications/read-all (Kith addition, §11.2): marks everything read up to `before` (default now). */
export async function markAllRead(ctx: AppContext, user: UserRow, body: Body): Promise<{ updated: number }> {
  const before = body.integer('before');
  if (before !== undefined && before < 0) throw invalidField('before', 'before must be a Unix time in seconds');
  const limitMs = before === undefined ? ctx.clock.now() : before * 1000 + 999;
  // One transaction: the count and the watermark see the same notifications.
  return { updated: await transaction(ctx, (tx) => markReadUntil(tx, user.id, limitMs)) };
}

/** PUT /api/notifications/{id}: only `read` is read; without it the notification answers unchanged. */
export async function updateNotification(
  ctx: AppContext,
  user: UserRow,
  rawId: string,
  body: Body,
  include: NotificationIncludes,
) {
  const n = await loadNotificationFor(ctx.db.kysely, user, rawId, canUpdateNotification);
  const read = body.boolean('read');
  if (read === undefined) return presentNotification(n, include);
  await setNotificationRead(ctx.db.kysely, n, read);
  return presentNotification({ ...n, read: read ? 1 : 0 }, include);
}

/** DELETE /api/notifications/{id}: the owner's only; others answer 404. */
export async function deleteNotification(ctx: AppContext, user: UserRow, rawId: string): Promise<void> {
  const n = await loadNotificationFor(ctx.db.kysely, user, rawId, canDeleteNotification);
  await deleteOwnNotification(ctx.db.kysely, n);
}
