import type { AppContext } from '../context.js';
import { transaction } from '../db/transaction.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** How long things are kept (contract §10.1, §10.5). */
export const RETENTION = {
  /** A group without members is purged this long after the last member left. */
  emptyGroupMs: 30 * DAY_MS,
  /** Notifications are removed automatically after this. */
  notificationMs: 365 * DAY_MS,
  /** Spent or expired password reset keys are kept this long, then dropped. */
  resetKeyMs: DAY_MS,
} as const;

export interface HousekeepingReport {
  groupsPurged: number;
  notificationsExpired: number;
  resetKeysDropped: number;
}

/**
 * Removes what the contract says expires: member-less groups 30 days after they emptied (their
 * notifications go with them through the foreign keys), notifications after 365 days, and old reset
 * keys. Idempotent, so several processes may run it.
 */
export async function runHousekeeping(ctx: AppContext): Promise<HousekeepingReport> {
  const now = ctx.clock.now();
  return transaction(ctx, async (tx) => {
    // A group that someone joined again has `emptied_at` cleared; the membership check guards
    // against a join racing this purge.
    const groups = await tx
      .deleteFrom('groups')
      .where('emptied_at', 'is not', null)
      .where('emptied_at', '<=', now - RETENTION.emptyGroupMs)
      .where((eb) =>
        eb.not(
          eb.exists(eb.selectFrom('memberships').select('user_id').whereRef('memberships.group_id', '=', 'groups.id')),
        ),
      )
      .executeTakeFirst();
    const notifications = await tx
      .deleteFrom('notifications')
      .where('created_at', '<=', now - RETENTION.notificationMs)
      .executeTakeFirst();
    const resetKeys = await tx
      .deleteFrom('password_reset_keys')
      .where('expires_at', '<=', now - RETENTION.resetKeyMs)
      .executeTakeFirst();
    return {
      groupsPurged: Number(groups.numDeletedRows),
      notificationsExpired: Number(notifications.numDeletedRows),
      resetKeysDropped: Number(resetKeys.numDeletedRows),
    };
  });
}

const HOUR_MS = 60 * 60 * 1000;

/** Runs housekeeping now and then every hour; returns a function that stops it. */
export function scheduleHousekeeping(ctx: AppContext, everyMs = HOUR_MS): () => void {
  const run = () => {
    runHousekeeping(ctx)
      .then((report) => {
        if (report.groupsPurged + report.notificationsExpired + report.resetKeysDropped > 0) {
          ctx.log.info(report, 'housekeeping');
        }
      })
      .catch((error: unknown) => ctx.log.error({ err: error }, 'housekeeping failed'));
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
