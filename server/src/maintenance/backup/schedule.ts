import type { BackupSchedule } from '../../config.js';
import type { AppContext } from '../../context.js';
import { wallTime, zonedInstant } from '../../features/digests/schedule.js';
import { claimSlot } from '../../lib/slots.js';
import type { BackupReport } from './backup.js';
import { listBackups } from './manifest.js';

// Scheduled backups (BACKUP_DIR, BACKUP_SCHEDULE, BACKUP_KEEP): checked every minute in the
// processes that run jobs. A slot (a day's time, or an N-hour period) is due when no backup folder
// of BACKUP_DIR was started at or after its time: so a restart does not back up again, and a
// server that was down at 03:00 backs up when it comes back. In the scale-out mode the slot is
// also claimed in Redis (lib/slots.ts): one worker takes it.

const MINUTE_MS = 60 * 1000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** The latest scheduled time at or before `now`, and the length of a period. */
export function latestBackupSlot(
  schedule: BackupSchedule,
  now: number,
  timeZone: string,
): { slot: number; periodMs: number } {
  if (schedule.kind === 'interval') {
    const periodMs = schedule.hours * HOUR_MS;
    return { slot: now - (now % periodMs), periodMs };
  }
  const w = wallTime(now, timeZone);
  const at = (daysBack: number) =>
    zonedInstant(w.year, w.month, w.day - daysBack, schedule.hour, timeZone) + schedule.minute * MINUTE_MS;
  const today = at(0);
  return { slot: today <= now ? today : at(1), periodMs: DAY_MS };
}

/** What one scheduled run did. */
export interface ScheduledBackup {
  report: BackupReport;
  /** Older backups deleted (BACKUP_KEEP). */
  pruned: string[];
}

const running = new WeakSet<AppContext>();

/**
 * Takes the scheduled backup when its slot is due and this process wins it, then keeps only
 * BACKUP_KEEP verified backups; returns null when nothing was due (or backups are off). Logs the
 * report, as an error when the verification failed.
 */
export async function runBackupSchedule(ctx: AppContext): Promise<ScheduledBackup | null> {
  const settings = ctx.config.backup;
  if (settings === null || running.has(ctx)) return null;
  // The backup code brings the AWS SDK and pg: loaded only by instances that take backups.
  const { createBackup, folderName, pruneBackups } = await import('./backup.js');
  const now = ctx.clock.now();
  const { slot, periodMs } = latestBackupSlot(settings.schedule, now, ctx.config.timeZone);
  const since = folderName(slot);
  if ((await listBackups(settings.dir)).some((backup) => backup.name >= since)) return null;
  if (!(await claimSlot(ctx, 'backup', slot, periodMs))) return null;
  running.add(ctx);
  try {
    const report = await createBackup(ctx.config, { dir: settings.dir, now: () => ctx.clock.now() });
    const pruned = report.state === 'verified' ? await pruneBackups(settings.dir, settings.keep) : [];
    if (report.state === 'verified') ctx.log.info({ backup: report, pruned }, 'backup verified');
    else ctx.log.error({ backup: report }, 'backup failed its verification');
    return { report, pruned };
  } finally {
    running.delete(ctx);
  }
}

/** Checks the backup schedule now and then every minute; returns a function that stops it. */
export function scheduleBackups(ctx: AppContext, everyMs = MINUTE_MS): () => void {
  if (ctx.config.backup === null) return () => undefined;
  const run = () => {
    runBackupSchedule(ctx).catch((error: unknown) => ctx.log.error({ err: error }, 'backup failed'));
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
