import { pino, type Logger } from 'pino';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openDatabase, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { systemClock, type Clock } from './lib/clock.js';
import { MemoryRateLimiter } from './lib/rate-limiter.js';
import { connectRedis, whenReady } from './lib/redis.js';
import { RedisRateLimiter } from './lib/redis-rate-limiter.js';
import { SecretBox } from './lib/secrets.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { registerMailHandler } from './mail/queue.js';
import { registerImmediateMailHandler } from './features/digests/immediate.js';
import { registerPushHandlers } from './features/push/jobs.js';
import { registerExportHandler } from './features/exports/service.js';
import { registerDigestHandler } from './features/digests/service.js';
import { registerLinkPreviewHandler } from './features/links/service.js';
import { MemoryEventBus } from './events/memory-event-bus.js';
import { RedisEventBus } from './events/redis-event-bus.js';
import { createJobQueue } from './jobs/create.js';
import { countJobFailures } from './jobs/counted-job-queue.js';
import { Metrics } from './lib/metrics.js';
import { registerMediaHandlers } from './features/files/media-jobs.js';
import { detectMediaTools } from './media/tools.js';
import { createSearchIndex } from './search/create.js';
import { createFileStore } from './storage/create.js';

/** A logger that never prints secrets: the auth header and cookies are redacted wherever they appear. */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({
    level: config.logLevel,
    redact: {
      paths: ['req.headers["x-auth-token"]', 'req.headers.cookie', 'headers["x-auth-token"]', 'headers.cookie'],
      censor: '[redacted]',
    },
  });
}

/**
 * Opens the database, migrates it, and assembles the context every service receives. `main.ts`,
 * the admin CLI and the tests all go through here, so they run the same parts.
 */
export async function createContext(
  config: Config,
  overrides: { log?: Logger; clock?: Clock; mailer?: Mailer; db?: Db } = {},
): Promise<AppContext> {
  const log = overrides.log ?? createLogger(config);
  const db = overrides.db ?? openDatabase(config.database);
  try {
    await Promise.all([migrateToLatest(db), detectMediaTools()]);
  } catch (error) {
    // A database that cannot be migrated (one from a newer Kith, a failed migration) is let go,
    // so a caller that reports the error and carries on (the CLI in tests) holds no connection.
    if (overrides.db === undefined) await db.close().catch(() => undefined);
    throw error;
  }
  const clock = overrides.clock ?? systemClock;
  // Throttle counts and live events shared by every server process when REDIS_URL is set
  // (docs/scale-out.md).
  const redis = config.redisUrl === null ? null : connectRedis(config.redisUrl);
  const prefix = `${config.redisPrefix}:`;
  if (redis !== null) {
    // Commands fail at once while the connection is down: give it a moment before serving. A
    // Redis still away is not fatal (requests that need none work; the rest answer 503).
    await whenReady(redis, 2000).catch(() => log.warn('Redis does not answer yet: throttled requests will answer 503'));
  }
  // Kept only when a scraper may read them (METRICS_TOKEN): otherwise nothing is counted.
  const metrics = config.metricsToken === null ? null : new Metrics();
  const jobs = await createJobQueue({ config, db, clock, log });
  const ctx: AppContext = {
    config,
    db,
    clock,
    log,
    limiter: redis === null ? new MemoryRateLimiter(clock) : new RedisRateLimiter(redis, clock, `${prefix}rl:`),
    redis,
    secretBox: new SecretBox(config.secretKey),
    mailer: overrides.mailer ?? createMailer(config, log),
    search: createSearchIndex(db.dialect),
    events: redis === null ? new MemoryEventBus(clock) : new RedisEventBus(redis, { prefix, clock, log }),
    files: await createFileStore(config),
    jobs: metrics === null ? jobs : countJobFailures(jobs, metrics),
    metrics,
  };
  registerMediaHandlers(ctx, ctx.jobs);
  registerMailHandler(ctx, ctx.jobs);
  registerDigestHandler(ctx, ctx.jobs);
  registerImmediateMailHandler(ctx, ctx.jobs);
  registerLinkPreviewHandler(ctx, ctx.jobs);
  registerPushHandlers(ctx, ctx.jobs);
  registerExportHandler(ctx, ctx.jobs);
  return ctx;
}

/**
 * Closes what `createContext` opened: the event bus (its last events leave first), the database
 * and the Redis connection. The job runner is stopped before, by whoever started it.
 */
export async function closeContext(ctx: AppContext, options: { database?: boolean } = {}): Promise<void> {
  await ctx.events.close();
  // A context built on another's database (`overrides.db`, in tests) leaves it open for its owner.
  if (options.database !== false) await ctx.db.close();
  await ctx.redis?.quit().catch(() => undefined);
}
