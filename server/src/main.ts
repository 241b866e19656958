import { buildApp } from './app.js';
import { ConfigError, loadConfig, loadDotEnv, type Config } from './config.js';
import { firstRunInvitation } from './first-run.js';
import { scheduleHousekeeping } from './maintenance/housekeeping.js';
import { scheduleBackups } from './maintenance/backup/schedule.js';
import { forgetStaleUploadClaims } from './features/files/quota.js';
import { scheduleDigests } from './features/digests/service.js';
import type { MailListener } from './features/mail-replies/listener.js';
import { mediaTools, parentDeathGuard } from './media/tools.js';
import { acquireInstanceLock, InstanceLockedError, type InstanceLock } from './db/instance-lock.js';
import { NewerDatabaseError } from './db/migrate.js';
import { closeContext, createContext, createLogger } from './setup.js';
import { buildMetricsApp } from './features/metrics/routes.js';
import { enableMallocTrim } from './lib/malloc-trim.js';
import { QUIET_RECLAIM_GROWTH_BYTES, QUIET_RECLAIM_MS, QuietReclaim } from './lib/quiet-reclaim.js';

/** Entry point: read the configuration, migrate, serve, and stop cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config: Config;
  try {
    loadDotEnv();
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee .env.example for every setting.\n`);
      process.exit(1);
    }
    throw error;
  }

  const log = createLogger(config);
  const role = roleFrom(process.argv.slice(2));
  // Several processes may share the data only on PostgreSQL with Redis beside it (events, jobs and
  // throttles in Redis); otherwise one server process per set of data, and a second one stops
  // here, before migrating or listening (db/instance-lock.ts).
  const scaleOut = config.database.kind === 'postgres' && config.redisUrl !== null;
  let lock: InstanceLock | null = null;
  if (scaleOut) {
    log.info(
      { database: config.database.kind, role, files: config.s3 === null ? 'DATA_DIR' : 's3' },
      'scale-out mode: several processes may share PostgreSQL, Redis and the files',
    );
    if (config.s3 === null)
      log.warn('files are in DATA_DIR: every process must see the same folder (or set S3_BUCKET)');
    if (process.env.SECRET_KEY === undefined) {
      log.warn('SECRET_KEY is not set: every process must use the same one (set it, or share DATA_DIR/secret.key)');
    }
  } else {
    if (role !== 'all') {
      process.stderr.write(
        `--role ${role} needs the scale-out stores: DATABASE_URL=postgres://… and REDIS_URL=redis://… (see docs/scale-out.md).\n`,
      );
      process.exit(1);
    }
    try {
      lock = await acquireInstanceLock(config.database);
    } catch (error) {
      if (error instanceof InstanceLockedError) {
        process.stderr.write(`${error.message}\n`);
        process.exit(1);
      }
      throw error;
    }
    log.info(
      { database: config.database.kind },
      config.database.kind === 'sqlite'
        ? 'single-process mode (SQLite): a second server on the same data refuses to start'
        : 'single-process mode (PostgreSQL without REDIS_URL): a second server on the same data refuses to start',
    );
  }
  let ctx: Awaited<ReturnType<typeof createContext>>;
  try {
    ctx = await createContext(config, { log });
  } catch (error) {
    // A database of a newer Kith: say so plainly (not a stack) and leave it as it is.
    if (error instanceof NewerDatabaseError) {
      process.stderr.write(`Kith cannot start: ${error.message}\n`);
      await lock?.release();
      process.exit(1);
    }
    throw error;
  }
  // The one process of this data: uploads cut by its predecessor's end still hold room under the quotas.
  if (lock !== null) await forgetStaleUploadClaims(ctx);
  const web = role !== 'worker';
  const worker = role !== 'web';
  // Memory back to the system once requests pause for a second (lib/quiet-reclaim.ts), and glibc's
  // free pages with it (lib/malloc-trim.ts).
  enableMallocTrim();
  const quiet = new QuietReclaim({
    quietMs: QUIET_RECLAIM_MS,
    minGrowthBytes: QUIET_RECLAIM_GROWTH_BYTES,
    collect: globalThis.gc,
    release: () => ctx.db.releaseMemory(),
  });
  const app = web ? await buildApp(ctx, { onActivity: () => quiet.touch() }) : null;
  // A worker serves no API; with METRICS_TOKEN it still answers its own metrics on PORT.
  const metricsApp = !web && ctx.metrics !== null ? await buildMetricsApp(ctx) : null;
  // Scheduled work and background jobs run in the worker processes (and in `all`).
  const stopHousekeeping = worker ? scheduleHousekeeping(ctx) : () => undefined;
  const stopDigests = worker ? scheduleDigests(ctx) : () => undefined;
  // Off without BACKUP_DIR; in the scale-out mode one worker takes each slot.
  const stopBackups = worker ? scheduleBackups(ctx) : () => undefined;
  if (worker) {
    const tools = mediaTools();
    const missing = Object.entries(tools)
      .filter(([, found]) => !found)
      .map(([name]) => name);
    if (missing.length > 0) log.warn({ missing }, 'media tools not found: the uploads that need them are turned off');
    if (parentDeathGuard().length === 0) {
      log.warn('setpriv (util-linux) cannot tie media tools to this process: if it is killed, a conversion may run on');
    }
    ctx.jobs.start();
  }
  // Reply by e-mail: the SMTP/LMTP listener runs where the jobs run (docs/mail-replies.md).
  let mailListener: MailListener | null = null;
  if (worker && config.mailReplies !== null && config.mailReplies.listener !== null) {
    // smtp-server and mailparser (12 MB of heap together) load only where the listener runs.
    const { startMailListener } = await import('./features/mail-replies/listener.js');
    mailListener = await startMailListener(ctx);
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    // A request that hangs must not keep the process alive for ever.
    setTimeout(() => process.exit(1), 10_000).unref();
    quiet.stop();
    stopHousekeeping();
    stopDigests();
    stopBackups();
    // Drains: no new requests (fastify answers 503 while closing), open streams told to come back
    // at once (to another process behind the balancer), running jobs stopped (ffmpeg killed) and
    // handed back to the queue for another worker or the next start.
    Promise.all([app?.close(), metricsApp?.close(), ctx.jobs.stop(), mailListener?.close()])
      .then(() => closeContext(ctx))
      .then(() => lock?.release())
      .then(() => {
        log.info('stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        log.error({ err: error }, 'error while shutting down');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  if (app === null) {
    // Nothing else holds a worker open for sure: its timers are unref'd, its connections may idle.
    const keepAlive = setInterval(() => undefined, 60 * 60_000);
    process.once('SIGTERM', () => clearInterval(keepAlive));
    process.once('SIGINT', () => clearInterval(keepAlive));
    if (metricsApp !== null) await metricsApp.listen({ port: config.port, host: config.host });
    log.info({ database: config.database.kind, role, metrics: metricsApp !== null }, 'Kith worker is running');
    return;
  }
  await app.listen({ port: config.port, host: config.host });
  log.info({ url: config.publicUrl, database: config.database.kind, role }, 'Kith is listening');

  const invitation = await firstRunInvitation(ctx);
  if (invitation !== null) {
    // Printed on the console, not only in the JSON log, so the first person finds it.
    process.stdout.write(
      `\n  Welcome to Kith. No account exists yet.\n  Open this link to create the first account and group:\n\n    ${invitation}\n\n`,
    );
  }
}

type Role = 'web' | 'worker' | 'all';

/**
 * `--role web|worker|all` (default all): web serves HTTP only, worker runs the background jobs and
 * scheduled work only (media conversion on other machines), all does both (`npm start`).
 */
function roleFrom(args: string[]): Role {
  const index = args.indexOf('--role');
  if (index < 0) return 'all';
  const value = args[index + 1];
  if (value === 'web' || value === 'worker' || value === 'all') return value;
  process.stderr.write(`--role must be web, worker or all (got ${value === undefined ? 'nothing' : `"${value}"`}).\n`);
  process.exit(2);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Kith could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
