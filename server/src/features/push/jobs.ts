import type { AppContext } from '../../context.js';
import { transaction } from '../../db/transaction.js';
import { PermanentJobError, type JobQueue } from '../../jobs/job-queue.js';
import { mailLanguage } from '../../mail/texts.js';
import { RefusedEndpointError, resolveEndpoint, type CheckedTarget } from './endpoint.js';
import { buildPayload } from './payload.js';
import { inQuietHours, isValidTimeZone, parseQuietHours, pushAdmits, pushChoiceOf } from './policy.js';
import {
  advancePushCursor,
  deleteExpiredPresence,
  deleteSubscription,
  findPushUser,
  findSubscription,
  hasFocusedPresence,
  listSubscriptions,
  pendingNotifications,
  recordPushFailure,
  recordPushSuccess,
} from './queries.js';
import { sendPush, type PushOutcome } from './sender.js';
import { vapidKeys } from './vapid.js';

/**
 * How often one push to one device is tried. With the queue's backoff (10 s doubling) that is
 * about 20 minutes: a push service down longer than that gets no stale notification later.
 */
export const PUSH_SEND_MAX_ATTEMPTS = 8;

/**
 * The Web Push jobs (docs/api §11.9), in both modes' job queue:
 *
 * `push-notifications` {userId}, queued by queue.ts a minute after the first notification of a
 * burst, looks at the user's unread notifications not dealt with yet and moves their cursor past
 * them (once, even if the job ran twice). It pushes nothing when a browser of theirs has Kith in
 * front (they saw it live), during their quiet hours (the notifications wait in the app; no push
 * comes later), or when their choice lets none of them through; else one push for all of them,
 * queued as one `send-push` per device.
 *
 * `send-push` {subscriptionId, sealed} sends it: the endpoint is checked again (DNS included),
 * the request goes to the checked address with a timeout; a device the push service no longer
 * knows (404, 410) is forgotten, a busy or failing service (429, 5xx, network, timeout) is tried
 * again with backoff, other refusals are given up. The payload waits sealed with the server secret,
 * as queued mails do: it holds message titles.
 */
export function registerPushHandlers(ctx: AppContext, queue: JobQueue): void {
  queue.register('push-notifications', {
    async run({ userId }) {
      if (!ctx.config.push.enabled) return;
      const db = ctx.db.kysely;
      const user = await findPushUser(db, userId);
      if (user === undefined) return;
      const pending = await pendingNotifications(db, userId, user.push_cursor);
      const newest = pending[pending.length - 1];
      if (newest === undefined) return;
      const now = ctx.clock.now();
      const choice = pushChoiceOf(user.push_notifications);
      const admitted = pending.filter((n) =>
        pushAdmits(choice, {
          type: n.type,
          replyToRecipient: n.type === 'new_comment' && n.from_message_author_id === userId,
        }),
      );
      await deleteExpiredPresence(db, now);
      const seenLive = await hasFocusedPresence(db, userId, now);
      const quiet = parseQuietHours(user.quiet_hours ?? '');
      const timeZone =
        user.time_zone !== null && isValidTimeZone(user.time_zone) ? user.time_zone : ctx.config.timeZone;
      const quietNow = quiet !== 'invalid' && inQuietHours(quiet, now, timeZone);
      const devices = await listSubscriptions(db, userId);
      await transaction(ctx, async (tx, effects) => {
        // Another run of this job got there first: what lies between was its to push.
        if (!(await advancePushCursor(tx, userId, user.push_cursor, newest.created_at))) return;
        if (admitted.length === 0 || seenLive || quietNow || devices.length === 0) return;
        const payload = buildPayload(mailLanguage(user.lang, ctx.config.defaultLang), admitted);
        const sealed = ctx.secretBox.seal(JSON.stringify(payload));
        await effects.enqueueMany(
          'send-push',
          devices.map((d) => ({ subscriptionId: d.id, sealed })),
          { maxAttempts: PUSH_SEND_MAX_ATTEMPTS },
        );
      });
    },
  });

  queue.register('send-push', {
    async run({ subscriptionId, sealed }) {
      if (!ctx.config.push.enabled) return;
      const db = ctx.db.kysely;
      const device = await findSubscription(db, subscriptionId);
      // Removed meanwhile (by its owner, or as expired): nothing to send to.
      if (device === undefined) return;
      let payload: string;
      try {
        payload = ctx.secretBox.open(sealed);
      } catch {
        throw new PermanentJobError('The queued push cannot be opened with the current SECRET_KEY');
      }
      let target: CheckedTarget;
      try {
        target = await resolveEndpoint(device.endpoint, ctx.config.push.allowLoopback);
      } catch (error) {
        if (!(error instanceof RefusedEndpointError)) throw error;
        await recordPushFailure(db, device.id);
        // A name that does not resolve now may later; one that points somewhere refused will not.
        if (error.message === 'host not found') throw error;
        throw new PermanentJobError(`push endpoint refused: ${error.message}`);
      }
      const keys = await vapidKeys(ctx);
      let outcome: PushOutcome;
      try {
        outcome = await sendPush(target, device, payload, { ...keys, subject: ctx.config.push.subject });
      } catch (error) {
        await recordPushFailure(db, device.id);
        throw error;
      }
      switch (outcome.kind) {
        case 'sent':
          await recordPushSuccess(db, device.id, ctx.clock.now());
          return;
        case 'gone':
          await deleteSubscription(db, device.id);
          return;
        case 'failed':
          await recordPushFailure(db, device.id);
          if (outcome.status === 429 || outcome.status >= 500)
            throw new Error(`push service answered ${outcome.status}`);
          throw new PermanentJobError(`push service refused the push (${outcome.status})`);
      }
    },
    onFailure({ subscriptionId }, error) {
      ctx.log.warn(
        { subscriptionId, err: error instanceof Error ? error.message : String(error) },
        'a push was given up',
      );
      return Promise.resolve();
    },
  });
}
