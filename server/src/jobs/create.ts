import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import { DbJobQueue } from './db-job-queue.js';
import type { JobQueue } from './job-queue.js';

/**
 * The job queue of the configured stores (design §1): BullMQ when the server processes share Redis
 * and PostgreSQL, else the embedded runner on the database. SQLite keeps the embedded runner even
 * with Redis: one process owns a SQLite file, so there is no one to share the jobs with.
 */
export async function createJobQueue(deps: {
  config: Pick<Config, 'redisUrl' | 'redisPrefix' | 'jobLeaseMs'>;
  db: Db;
  clock: Clock;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}): Promise<JobQueue> {
  const { config, db, clock, log } = deps;
  if (config.redisUrl !== null && db.dialect === 'postgres') {
    // BullMQ (7 MB of heap) is loaded only by the processes that use it.
    const { BullJobQueue } = await import('./bull-job-queue.js');
    return new BullJobQueue(db, {
      redisUrl: config.redisUrl,
      prefix: config.redisPrefix,
      clock,
      log,
      leaseMs: config.jobLeaseMs,
    });
  }
  return new DbJobQueue(db, { clock, log, leaseMs: config.jobLeaseMs });
}
