import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, inject } from 'vitest';
import { buildApp } from '../src/app.js';
import { linkPreviewsSettled } from '../src/features/links/service.js';
import { loadConfig, type Config } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import { openDatabase } from '../src/db/database.js';
import type { Clock } from '../src/lib/clock.js';
import { randomToken } from '../src/lib/secrets.js';
import type { Mail, Mailer } from '../src/mail/mailer.js';
import { closeContext, createContext } from '../src/setup.js';
import { ApiClient } from './client.js';
import { dropDatabase, TEST_DB_PREFIX, urlForDatabase, withAdmin } from './postgres.js';
import { createTestBucket, s3Env } from './s3.js';

/** A clock the test moves by hand (throttle windows, key expiry). */
export class TestClock implements Clock {
  constructor(private t = Date.now()) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
}

/** Keeps every mail instead of sending it. */
export class CapturingMailer implements Mailer {
  readonly sent: Mail[] = [];
  /** Runs the queued jobs (the harness sets it): mails leave from the job queue, which tests drive. */
  pump: () => Promise<void> = () => Promise.resolve();
  send(mail: Mail): Promise<void> {
    this.sent.push(mail);
    return Promise.resolve();
  }
  /** Mails are queued by the request and sent by a job; run the queue until one matches. */
  async waitFor(predicate: (mail: Mail) => boolean, timeoutMs = 15_000): Promise<Mail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.pump();
      const mail = this.sent.find(predicate);
      if (mail !== undefined) return mail;
      if (Date.now() > deadline) throw new Error('expected mail was not sent');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/** The engine this test run uses: the `sqlite` and `postgres` vitest projects set KITH_TEST_DB. */
export const TEST_DIALECT = process.env.KITH_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/**
 * The scale-out stores, when this run tests with them (the `postgres` project sets
 * KITH_TEST_SCALE_OUT): the machine's Redis under keys of this app's own, so that files running
 * at once never share throttle counts or events, and a bucket of its own in the run's S3 server.
 */
async function sharedStores(): Promise<Record<string, string>> {
  if (process.env.KITH_TEST_SCALE_OUT !== 'true') return {};
  const name = randomToken()
    .slice(0, 12)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x');
  const endpoint = inject('s3Endpoint');
  const bucket = `kith-test-${name}`;
  await createTestBucket(endpoint, bucket);
  return {
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `kith-test.${process.pid}.${name}`,
    ...s3Env(endpoint, bucket),
  };
}

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  clock: TestClock;
  mailer: CapturingMailer;
  config: Config;
  close(): Promise<void>;
}

/**
 * A real app on a real, fresh database of its own: a SQLite file in a temporary folder, or a
 * PostgreSQL database copied from the migrated template. Each test file builds one.
 */
export async function createTestApp(
  env: Record<string, string> = {},
  options: { realMailer?: boolean } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kith-test-'));
  let pgName: string | null = null;
  let database: Record<string, string> = {};
  if (TEST_DIALECT === 'postgres') {
    pgName = `${TEST_DB_PREFIX}${inject('postgresTemplate').split('_')[2]}_${randomToken()
      .slice(0, 10)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}`;
    const template = inject('postgresTemplate');
    await withAdmin((client) => client.query(`CREATE DATABASE "${pgName}" TEMPLATE "${template}"`));
    database = { DATABASE_URL: urlForDatabase(pgName) };
  }
  const config = loadConfig({
    DATA_DIR: dataDir,
    SECRET_KEY: 'test-secret-test-secret-test-secret-42',
    PUBLIC_URL: 'http://kith.test',
    LOG_LEVEL: 'silent',
    WEB_DIST: path.join(dataDir, 'no-web-dist'),
    // Tests never reach the web: link previews are fetched only by tests that serve the pages
    // themselves on 127.0.0.1.
    LINK_PREVIEWS: env.LINK_PREVIEW_ALLOW_LOOPBACK === 'true' ? 'true' : 'false',
    ...database,
    ...(await sharedStores()),
    ...env,
  });
  const clock = new TestClock();
  const mailer = new CapturingMailer();
  const db = openDatabase(config.database);
  // The real mailer (SMTP from SMTP_URL, else the outbox folder) for the tests of mail delivery;
  // every other test keeps the mails in memory.
  const ctx = await createContext(config, {
    log: pino({ level: 'silent' }),
    clock,
    db,
    ...(options.realMailer === true ? {} : { mailer }),
  });
  mailer.pump = () => ctx.jobs.drain();
  const app = await buildApp(ctx);
  await app.ready();
  return {
    app,
    ctx,
    clock,
    mailer,
    config,
    async close() {
      // Background link previews finish before the database goes away.
      await linkPreviewsSettled(ctx);
      await ctx.jobs.stop();
      await app.close();
      await ctx.events.close();
      // The app's Redis keys (events, jobs, throttles) go with it, as its database does.
      if (ctx.redis !== null && process.env.KITH_TEST_SCALE_OUT === 'true') {
        await forgetRedisKeys(ctx.redis, `${config.redisPrefix}:`).catch(() => undefined);
      }
      await closeContext(ctx);
      if (pgName !== null) {
        const name = pgName;
        await withAdmin((client) => dropDatabase(client, name));
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Gives a describe block its own app and database, built in beforeAll and closed in afterAll. */
export function useTestApp(env: Record<string, string> = {}): { t: TestApp; api: ApiClient } {
  const holder = {} as { t: TestApp; api: ApiClient };
  beforeAll(async () => {
    holder.t = await createTestApp(env);
    holder.api = new ApiClient(holder.t.app);
  });
  afterAll(() => holder.t.close());
  return holder;
}

/** Deletes every key under `prefix`. */
async function forgetRedisKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}
