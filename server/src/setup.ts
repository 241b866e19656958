import { pino, type Logger } from 'pino';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openDatabase, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { systemClock, type Clock } from './lib/clock.js';
import { MemoryRateLimiter } from './lib/rate-limiter.js';
import { connectRedis, RedisRateLimiter } from './lib/redis-rate-limiter.js';
import { SecretBox } from './lib/secrets.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { registerMailHandler } from './mail/queue.js';
import { registerDigestHandler } from './features/digests/service.js';
import { registerLinkPreviewHandler } from './features/links/service.js';
import { MemoryEventBus } from './events/memory-event-bus.js';
import { DbJobQueue } from './jobs/db-job-queue.js';
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
  await Promise.all([migrateToLatest(db), detectMediaTools()]);
  const clock = overrides.clock ?? systemClock;
  // Throttle counts shared by every server process when REDIS_URL is set (docs/scale-out.md).
  const redis = config.redisUrl === null ? null : connectRedis(config.redisUrl);
  const ctx: AppContext = {
    config,
    db,
    clock,
    log,
    limiter: redis === null ? new MemoryRateLimiter(clock) : new RedisRateLimiter(redis, clock, `${config.redisPrefix}:rl:`),
    redis,
    secretBox: new SecretBox(config.secretKey),
    mailer: overrides.mailer ?? createMailer(config, log),
    search: createSearchIndex(db.dialect),
    events: new MemoryEventBus(clock),
    files: createFileStore(config),
    jobs: new DbJobQueue(db, { clock, log }),
  };
  registerMediaHandlers(ctx, ctx.jobs);
  registerMailHandler(ctx, ctx.jobs);
  registerDigestHandler(ctx, ctx.jobs);
  registerLinkPreviewHandler(ctx, ctx.jobs);
  return ctx;
}
