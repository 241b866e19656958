import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../test/harness.js';
import { jobQueueCases, type QueueGroup, type TestJobs } from '../../test/job-queue-cases.js';
import { freePort } from '../../test/ports.js';
import { BullJobQueue, type BullJobQueueOptions } from './bull-job-queue.js';
import type { EnqueueOptions } from './job-queue.js';

// BullMQ on the machine's real Redis (TEST_REDIS_URL, else 127.0.0.1:6379), the rows in the test
// app's database (SQLite or PostgreSQL, as the project says). Each test's queues have a key prefix
// of their own, removed afterwards, so runs and files never see each other's jobs.
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

type Options = Omit<BullJobQueueOptions, 'redisUrl' | 'prefix' | 'clock'> & { redisUrl?: string };

/** Queues sharing one database, one Redis and one prefix: the processes of one instance. */
function bullGroup(
  t: TestApp,
  redis: Redis,
): QueueGroup & { prefix: string; make(options?: Options): BullJobQueue<TestJobs> } {
  const prefix = `kith-test-${process.pid}-${randomBytes(6).toString('hex')}`;
  const made: BullJobQueue<TestJobs>[] = [];
  return {
    prefix,
    make: (options = {}) => {
      const q = new BullJobQueue<TestJobs>(t.ctx.db, {
        redisUrl: REDIS_URL,
        prefix,
        clock: t.clock,
        pollMs: 50,
        ...options,
      });
      made.push(q);
      return q;
    },
    close: async () => {
      await Promise.all(made.map((q) => q.stop()));
      await removeKeys(redis, prefix);
    },
  };
}

/** Removes every key under `prefix`. */
async function removeKeys(redis: Redis, prefix: string): Promise<void> {
  for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 1000 })) {
    if ((keys as string[]).length > 0) await redis.del(...(keys as string[]));
  }
}

describe('BullJobQueue', () => {
  const h = useTestApp();
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await redis.quit();
  });

  jobQueueCases(h, (t) => bullGroup(t, redis));

  describe('across processes', () => {
    let group: ReturnType<typeof bullGroup>;
    beforeEach(async () => {
      await h.t.ctx.db.kysely.deleteFrom('jobs').execute();
      group = bullGroup(h.t, redis);
      return () => group.close();
    });
    const jobRow = (id: string) =>
      h.t.ctx.db.kysely.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    // Short locks and stall checks, so a dead process's job is taken up within a second. Every
    // process of an instance checks at the same interval (BullMQ keeps one check time per queue).
    const crashable = { leaseMs: 500, stalledCheckMs: 100 };
    /** Enqueues a `slow` job and starts it on a process that is then killed mid-run; the job's id. */
    const killedMidRun = async (key: string, options: EnqueueOptions = {}) => {
      const dying = group.make(crashable);
      const started = new Promise<void>((resolve) =>
        dying.register('slow', {
          run: () => {
            resolve();
            return new Promise<void>(() => undefined);
          },
        }),
      );
      const id = await dying.enqueue(h.t.ctx.db.kysely, 'slow', { key }, options);
      dying.start();
      await started;
      await dying.abandon();
      return id;
    };

    it('two processes never run the same job twice over 50 jobs', async () => {
      const runs = new Map<string, number>();
      const by = [0, 0];
      const processes = [group.make(), group.make()];
      processes.forEach((q, i) =>
        q.register('slow', {
          run: async ({ key }) => {
            runs.set(key, (runs.get(key) ?? 0) + 1);
            by[i] = (by[i] ?? 0) + 1;
            await new Promise((resolve) => setTimeout(resolve, 2));
          },
        }),
      );
      for (const q of processes) q.start();
      const keys = Array.from({ length: 50 }, (_, i) => `job-${i}`);
      for (const [i, key] of keys.entries()) {
        const q = processes[i % 2];
        await q?.enqueue(h.t.ctx.db.kysely, 'slow', { key });
        q?.wake();
      }
      await expect
        .poll(async () => (await h.t.ctx.db.kysely.selectFrom('jobs').select('status').execute()).map((r) => r.status))
        .toEqual(keys.map(() => 'done'));
      expect([...runs.keys()].sort()).toEqual([...keys].sort());
      expect([...runs.values()].every((count) => count === 1)).toBe(true);
      expect((by[0] ?? 0) + (by[1] ?? 0)).toBe(50);
    });

    it('finishes on another process the job of a process killed mid-run', async () => {
      const id = await killedMidRun('orphan');

      const survivor = group.make(crashable);
      const attempts: number[] = [];
      survivor.register('slow', {
        run: (_payload, job) => {
          attempts.push(job.attempt);
          return Promise.resolve();
        },
      });
      survivor.start();
      await expect.poll(async () => (await jobRow(id)).status).toBe('done');
      // The killed run counts: the job may be the one that kills its process.
      expect(attempts).toEqual([2]);
      expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 2, last_error: null });
    });

    it('gives the job up, with onFailure, when its process was killed on the last attempt', async () => {
      const id = await killedMidRun('doomed', { maxAttempts: 1 });

      const survivor = group.make(crashable);
      const runs: string[] = [];
      const failed: string[] = [];
      survivor.register('slow', {
        run: ({ key }) => {
          runs.push(key);
          return Promise.resolve();
        },
        onFailure: ({ key }, error) => {
          failed.push(`${key}: ${(error as Error).message}`);
          return Promise.resolve();
        },
      });
      survivor.start();
      await expect.poll(async () => (await jobRow(id)).status).toBe('failed');
      expect(runs).toEqual([]);
      expect(failed).toEqual(['doomed: The job was interrupted too many times']);
      expect(await jobRow(id)).toMatchObject({ attempts: 2, last_error: 'The job was interrupted too many times' });
    });

    it('records a job that BullMQ itself fails for stalling, and calls onFailure', async () => {
      const id = await killedMidRun('stalled', { maxAttempts: 5 });

      // BullMQ's own limit set below the row's: BullMQ fails the job without running it.
      const survivor = group.make({ ...crashable, maxStalledCount: 0 });
      const failed: string[] = [];
      survivor.register('slow', {
        run: () => Promise.resolve(),
        onFailure: ({ key }) => {
          failed.push(key);
          return Promise.resolve();
        },
      });
      survivor.start();
      await expect.poll(async () => (await jobRow(id)).status).toBe('failed');
      expect(failed).toEqual(['stalled']);
      expect(await jobRow(id)).toMatchObject({ attempts: 1, last_error: 'The job was interrupted too many times' });
    });

    it('puts back in the queue a job whose hand-over Redis lost, and runs it', async () => {
      const id = await killedMidRun('lost');
      // Redis restarted without its data: BullMQ knows nothing of the job, the row says `running`.
      await removeKeys(redis, group.prefix);
      h.t.clock.advance(crashable.leaseMs + 1);

      const survivor = group.make(crashable);
      const attempts: number[] = [];
      survivor.register('slow', {
        run: (_payload, job) => {
          attempts.push(job.attempt);
          return Promise.resolve();
        },
      });
      survivor.start();
      await expect.poll(async () => (await jobRow(id)).status).toBe('done');
      expect(attempts).toEqual([2]);
      expect(await jobRow(id)).toMatchObject({ attempts: 2, handovers: 2 });
    });

    it('enqueues while Redis is unreachable: the row waits, and runs once a process reaches Redis', async () => {
      // A free port: nothing listens there.
      const cut = group.make({ redisUrl: `redis://127.0.0.1:${await freePort()}` });
      const runs: string[] = [];
      cut.register('slow', {
        run: ({ key }) => {
          runs.push(key);
          return Promise.resolve();
        },
      });
      const id = await h.t.ctx.db.kysely.transaction().execute((tx) => cut.enqueue(tx, 'slow', { key: 'kept' }));
      cut.start();
      cut.wake();
      await cut.stop();
      expect(await jobRow(id)).toMatchObject({ status: 'queued', attempts: 0 });
      expect(runs).toEqual([]);

      const connected = group.make();
      connected.register('slow', {
        run: ({ key }) => {
          runs.push(`${key} later`);
          return Promise.resolve();
        },
      });
      await connected.drain();
      expect(runs).toEqual(['kept later']);
      expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 1 });
    });

    it('keeps payloads out of Redis: a BullMQ job names its row and hand-over only', async () => {
      const q = group.make();
      let seen = '';
      q.register('slow', {
        run: async (_payload, job) => {
          seen = (await redis.hget(`${group.prefix}:jobs-light:${job.id}.1`, 'data')) ?? '';
        },
      });
      const id = await q.enqueue(h.t.ctx.db.kysely, 'slow', { key: 'secret-looking' });
      await q.drain();
      expect(JSON.parse(seen)).toEqual({ id, handover: 1 });
    });
  });
});
