import type { Effects, Tx } from '../../db/transaction.js';
import { pushAdmits, pushChoiceOf } from './policy.js';
import { messageAuthorId, subscribedUsers } from './queries.js';

/**
 * Collapsing (docs/api §11.9): a user's push waits this long after the first notification of a
 * burst; what arrives meanwhile joins it (one waiting job per user), so a burst is one push.
 */
export const PUSH_COLLAPSE_MS = 60_000;

/** How often the collecting job is tried (it only reads and queues; failures mean the database was away). */
const COLLECT_MAX_ATTEMPTS = 5;

/** Recipients looked up per query (well under both engines' bound-parameter limits). */
const LOOKUP_CHUNK = 500;

/**
 * Starts the push of the recipients of notifications just created, in the transaction that
 * created them (so the job exists exactly when they do): only users with a device, and whose
 * choice lets this type through. The job is the user's one waiting `push-notifications` job, due a
 * minute after the first notification; it decides at that moment (focus, quiet hours, read
 * meanwhile) and pushes everything unpushed at once. Whether push is enabled is checked when the
 * job runs: this is called where the configuration is not at hand, and costs one indexed query.
 */
export async function queuePushes(
  tx: Tx,
  effects: Effects,
  notification: PushedNotification,
  recipients: readonly string[],
): Promise<void> {
  const unique = [...new Set(recipients)];
  for (let i = 0; i < unique.length; i += LOOKUP_CHUNK) {
    await queuePushesTo(tx, effects, notification, await subscribedUsers(tx, unique.slice(i, i + LOOKUP_CHUNK)));
  }
}

/** What decides whether a notification is pushed. */
interface PushedNotification {
  type: string;
  fromMessageId: string | null;
}

/**
 * `queuePushes` for recipients already read with their push choice, each with a device (say, the
 * members a post notifies, read once for everything the post sends them).
 */
export async function queuePushesTo(
  tx: Tx,
  effects: Effects,
  notification: PushedNotification,
  users: readonly { id: string; push_notifications: string | null }[],
): Promise<void> {
  let author: string | null | undefined;
  const pushed: { userId: string }[] = [];
  for (const user of users) {
    const choice = pushChoiceOf(user.push_notifications);
    let replyToRecipient = false;
    if (choice === 'mentions_replies' && notification.type === 'new_comment' && notification.fromMessageId !== null) {
      author ??= await messageAuthorId(tx, notification.fromMessageId);
      replyToRecipient = author === user.id;
    }
    if (pushAdmits(choice, { type: notification.type, replyToRecipient })) pushed.push({ userId: user.id });
  }
  for (let i = 0; i < pushed.length; i += LOOKUP_CHUNK) {
    await effects.enqueueMany('push-notifications', pushed.slice(i, i + LOOKUP_CHUNK), {
      delayMs: PUSH_COLLAPSE_MS,
      unique: true,
      maxAttempts: COLLECT_MAX_ATTEMPTS,
    });
  }
}
