import { LIMITS, type PushSubscription, type PushSubscriptionList } from '@kith/common';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/database.js';
import type { UserRow } from '../../db/rows.js';
import { transaction } from '../../db/transaction.js';
import type { Body } from '../../lib/body.js';
import { ApiError, featureDisabled, invalidField, missingField, notFound } from '../../lib/errors.js';
import { newId, parseId } from '../../lib/ids.js';
import { RefusedEndpointError, resolveEndpoint } from './endpoint.js';
import { presentSubscription } from './presenter.js';
import {
  countSubscriptions,
  deleteExpiredPresence,
  deletePresence,
  deleteSubscriptionOf,
  findSubscriptionByEndpoint,
  initPushCursor,
  insertSubscription,
  listSubscriptions,
  newestNotificationAt,
  updateSubscription,
  upsertPresence,
} from './queries.js';
import { vapidKeys } from './vapid.js';

/** How long a focus report counts (the client repeats it every minute while focused). */
export const PRESENCE_LIFETIME_MS = 90_000;

/** The longest device label kept. */
const LABEL_MAX = 100;

const invalidSubscription = (message: string, field: string) =>
  new ApiError(400, 'invalid_push_subscription', message, field);

/** GET /api/me/push-subscriptions: the caller's devices, oldest first, and the key to add one. */
export async function listPushSubscriptions(ctx: AppContext, user: UserRow): Promise<PushSubscriptionList> {
  const [keys, rows] = await Promise.all([vapidKeys(ctx), listSubscriptions(ctx.db.kysely, user.id)]);
  return { publicKey: keys.publicKey, subscriptions: rows.map(presentSubscription) };
}

/** A base64url key of exactly `bytes` bytes, else the 400 naming `field`. */
function decodeKey(value: string | undefined, field: string, bytes: number, what: string): string {
  if (value === undefined || value === '') throw missingField(field);
  const text = value.replace(/=+$/, '');
  const decoded = /^[A-Za-z0-9_-]+$/.test(text) ? Buffer.from(text, 'base64url') : Buffer.alloc(0);
  // The device key is an uncompressed P-256 point: 65 bytes starting with 4.
  if (decoded.length !== bytes || (bytes === 65 && decoded[0] !== 4)) {
    throw invalidSubscription(`The ${what} must be ${bytes} bytes in base64url`, field);
  }
  return text;
}

/**
 * POST /api/me/push-subscriptions: adds the caller's device (201), or updates the one with this
 * endpoint (200), which moves to the caller if someone else had it (a shared family tablet). The
 * endpoint must pass the link previews' address rules (endpoint.ts); at most
 * `LIMITS.pushSubscriptionsPerUser` devices per user (409).
 */
export async function addPushSubscription(
  ctx: AppContext,
  user: UserRow,
  body: Body,
): Promise<{ status: 200 | 201; subscription: PushSubscription }> {
  if (!ctx.config.push.enabled) throw featureDisabled('Push notifications are turned off on this instance');
  const endpoint = body.string('endpoint');
  if (endpoint === undefined || endpoint === '') throw missingField('endpoint');
  const keys = body.object('keys');
  if (keys === undefined) throw missingField('keys');
  const p256dh = decodeKey(keys.string('p256dh'), 'keys.p256dh', 65, 'device key');
  const auth = decodeKey(keys.string('auth'), 'keys.auth', 16, 'auth secret');
  // Without a label, a device subscribing again keeps the one it had.
  const label = body.string('label')?.trim();
  if (label !== undefined && [...label].length > LABEL_MAX) {
    throw invalidField('label', `The label must be at most ${LABEL_MAX} characters`);
  }
  try {
    await resolveEndpoint(endpoint, ctx.config.push.allowLoopback);
  } catch (error) {
    if (error instanceof RefusedEndpointError) {
      throw invalidSubscription(`The push endpoint is not allowed (${error.message})`, 'endpoint');
    }
    throw error;
  }
  const save = () =>
    transaction(ctx, async (tx) => {
      const now = ctx.clock.now();
      const existing = await findSubscriptionByEndpoint(tx, endpoint);
      if (existing === undefined || existing.user_id !== user.id) {
        if ((await countSubscriptions(tx, user.id)) >= LIMITS.pushSubscriptionsPerUser) {
          throw new ApiError(
            409,
            'too_many_push_subscriptions',
            `You already have ${LIMITS.pushSubscriptionsPerUser} devices receiving notifications. Remove one to add another.`,
          );
        }
      }
      // Pushes start with what happens from now on: notifications already there are not pushed.
      await initPushCursor(tx, user.id, (await newestNotificationAt(tx, user.id)) ?? 0);
      if (existing !== undefined) {
        const changes = { user_id: user.id, p256dh, auth, label: label ?? existing.label };
        await updateSubscription(tx, existing.id, changes);
        return { status: 200 as const, row: { ...existing, ...changes, failures: 0 } };
      }
      const row = {
        id: newId(),
        user_id: user.id,
        endpoint,
        p256dh,
        auth,
        label: label ?? '',
        created_at: now,
        last_push_at: null,
      };
      await insertSubscription(tx, row);
      return { status: 201 as const, row: { ...row, failures: 0 } };
    });
  let saved;
  try {
    saved = await save();
  } catch (error) {
    // The same device subscribing twice at once: the second finds the first's row and updates it.
    if (!isUniqueViolation(error)) throw error;
    saved = await save();
  }
  return { status: saved.status, subscription: presentSubscription(saved.row) };
}

/** DELETE /api/me/push-subscriptions/{id}: the caller's own device only; anything else is 404. */
export async function removePushSubscription(ctx: AppContext, user: UserRow, rawId: string): Promise<void> {
  const id = parseId(rawId);
  if (id === null || !(await deleteSubscriptionOf(ctx.db.kysely, id, user.id))) throw notFound();
}

const DEVICE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Whether `value` is a browser's presence id: 1 to 64 of [A-Za-z0-9_-]. */
export function isDeviceId(value: unknown): value is string {
  return typeof value === 'string' && DEVICE_ID.test(value);
}

/**
 * A browser's last live stream closed: it no longer has Kith in front, whether or not its last
 * report ("not focused", sent as the page goes) arrived. A closed tab, a killed browser or a lost
 * report would otherwise hold the user's pushes back for the 90 seconds a report counts.
 */
export async function forgetPresence(ctx: AppContext, userId: string, device: string): Promise<void> {
  await deletePresence(ctx.db.kysely, userId, device);
}

/**
 * PUT /api/me/presence: a browser reports Kith in front of the caller (counted for 90 seconds)
 * or no longer (forgotten at once). Pushes wait while any report of theirs is current.
 */
export async function reportPresence(ctx: AppContext, user: UserRow, body: Body): Promise<void> {
  const device = body.string('device');
  if (device === undefined) throw missingField('device');
  if (!isDeviceId(device)) throw invalidField('device', 'The device must be 1 to 64 letters, digits, _ or -');
  const focused = body.boolean('focused');
  if (focused === undefined) throw missingField('focused');
  const now = ctx.clock.now();
  const db = ctx.db.kysely;
  if (focused) {
    await upsertPresence(db, user.id, device, now + PRESENCE_LIFETIME_MS);
  } else {
    await deletePresence(db, user.id, device);
  }
  await deleteExpiredPresence(db, now);
}
