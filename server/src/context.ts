import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { Clock } from './lib/clock.js';
import type { RateLimiter } from './lib/rate-limiter.js';
import type { SecretBox } from './lib/secrets.js';
import type { Mailer } from './mail/mailer.js';
import type { EventBus } from './events/event-bus.js';
import type { SearchIndex } from './search/search-index.js';
import type { FileStore } from './storage/file-store.js';
import type { JobQueue } from './jobs/job-queue.js';
import type { Redis } from 'ioredis';
import type { Metrics } from './lib/metrics.js';

/**
 * What every service gets: the swappable parts chosen once at start-up. Tests build their own
 * (a controlled clock, a capturing mailer) and pass it to `buildApp`.
 */
export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  limiter: RateLimiter;
  secretBox: SecretBox;
  mailer: Mailer;
  log: FastifyBaseLogger;
  search: SearchIndex;
  events: EventBus;
  files: FileStore;
  /** Background jobs (video and audio conversion); started by main.ts, drained by tests. */
  jobs: JobQueue;
  /** The store shared with other server processes (`REDIS_URL`), or null in one-process mode. */
  redis: Redis | null;
  /** This process's Prometheus metrics (`METRICS_TOKEN`), or null when they are off. */
  metrics: Metrics | null;
}
