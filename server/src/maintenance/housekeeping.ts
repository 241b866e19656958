import type { AppContext } from '../context.js';
import { transaction, type Tx } from '../db/transaction.js';
import { expireExports } from '../features/exports/service.js';
import { claimSlot } from '../lib/slots.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** How long things are kept (docs/api §10.1, §10.5). */
export const RETENTION = {
  /** A group without members is purged this long after the last member left. */
  emptyGroupMs: 30 * DAY_MS,
  /** Notifications are removed automatically after this. */
  notificationMs: 365 * DAY_MS,
  /** Spent or expired password reset keys are kept this long, then dropped. */
  resetKeyMs: DAY_MS,
  /** A file attached to no message, not an avatar and not a link preview image goes after this (§7.1). */
  unattachedFileMs: DAY_MS,
} as const;

/** How many unattached files one run removes at most; the next run takes the rest. */
const FILE_BATCH = 500;

export interface HousekeepingReport {
  groupsPurged: number;
  notificationsExpired: number;
  resetKeysDropped: number;
  filesDeleted: number;
  /** Member exports past their expiry (zip and row), and failed ones older than a week. */
  exportsExpired: number;
}

/**
 * Removes what the contract says expires: member-less groups 30 days after they emptied (their
 * notifications go with them through the foreign keys), notifications after 365 days, old reset
 * keys, unattached uploads and expired exports. Idempotent, so several processes may run it.
 */
export async function runHousekeeping(ctx: AppContext): Promise<HousekeepingReport> {
  const now = ctx.clock.now();
  const report = await transaction(ctx, async (tx) => {
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
    // Group events (their members' states go by foreign key).
    const events = await tx
      .deleteFrom('notification_events')
      .where('created_at', '<=', now - RETENTION.notificationMs)
      .executeTakeFirst();
    const resetKeys = await tx
      .deleteFrom('password_reset_keys')
      .where('expires_at', '<=', now - RETENTION.resetKeyMs)
      .executeTakeFirst();
    return {
      groupsPurged: Number(groups.numDeletedRows),
      notificationsExpired: Number(notifications.numDeletedRows) + Number(events.numDeletedRows),
      resetKeysDropped: Number(resetKeys.numDeletedRows),
    };
  });
  return {
    ...report,
    filesDeleted: await deleteUnattachedFiles(ctx, now),
    exportsExpired: await expireExports(ctx, now),
  };
}

/**
 * Uploads left unused (docs/api §4.3, §7.1): files older than 24 hours that no message carries, no
 * user shows as avatar (a replaced avatar no longer counts) and no link shows as preview image
 * (a replaced preview image no longer counts either). The row goes first, in a statement that
 * checks the three conditions again, then the stored bytes and every derived picture.
 */
async function deleteUnattachedFiles(ctx: AppContext, now: number): Promise<number> {
  const unused = (db: Tx) =>
    db
      .selectFrom('files as f')
      .where('f.created_at', '<=', now - RETENTION.unattachedFileMs)
      .where((eb) =>
        eb.and([
          eb.not(
            eb.exists(eb.selectFrom('message_files as mf').select('mf.file_id').whereRef('mf.file_id', '=', 'f.id')),
          ),
          eb.not(eb.exists(eb.selectFrom('users as u').select('u.id').whereRef('u.avatar_id', '=', 'f.id'))),
          eb.not(eb.exists(eb.selectFrom('links as l').select('l.id').whereRef('l.preview_file_id', '=', 'f.id'))),
        ]),
      );
  const candidates = await unused(ctx.db.kysely).select(['f.id', 'f.storage_key']).limit(FILE_BATCH).execute();
  if (candidates.length === 0) return 0;
  const deleted = await transaction(ctx, async (tx) => {
    const still = await unused(tx)
      .select('f.id')
      .where(
        'f.id',
        'in',
        candidates.map((c) => c.id),
      )
      .execute();
    const ids = still.map((r) => r.id);
    if (ids.length > 0) await tx.deleteFrom('files').where('id', 'in', ids).execute();
    return new Set(ids);
  });
  for (const file of candidates) {
    if (!deleted.has(file.id)) continue;
    try {
      await ctx.files.delete(file.storage_key);
      await ctx.files.delete(`derived/${file.id}`);
    } catch (error) {
      ctx.log.warn({ err: error, fileId: file.id }, 'could not remove the bytes of a deleted file');
    }
  }
  return deleted.size;
}

const HOUR_MS = 60 * 60 * 1000;

/** Runs housekeeping now and then every hour; returns a function that stops it. */
export function scheduleHousekeeping(ctx: AppContext, everyMs = HOUR_MS): () => void {
  const run = () => {
    // One run per period for all the processes of a scale-out instance (lib/slots.ts).
    claimSlot(ctx, 'housekeeping', Math.floor(ctx.clock.now() / everyMs), everyMs)
      .then((claimed) => (claimed ? runHousekeeping(ctx) : null))
      .then((report) => {
        if (report === null) return;
        if (report.groupsPurged + report.notificationsExpired + report.resetKeysDropped + report.filesDeleted > 0) {
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
