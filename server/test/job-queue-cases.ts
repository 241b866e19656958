import { afterEach, beforeEach, expect, it } from 'vitest';
import { PermanentJobError, type JobQueue } from '../src/jobs/job-queue.js';
import type { TestApp } from './harness.js';

// The behaviour every JobQueue has, embedded on the database (db-job-queue.int.test.ts) and on
// BullMQ (bull-job-queue.int.test.ts): the contract of src/jobs/job-queue.ts. Called inside a
// describe that has a test app (useTestApp).

/** The jobs of these tests, by name, with their payload. */
export interface TestJobs {
  echo: { n: number; s: string; nested: { list: number[]; flag: boolean; none: null } };
  flaky: { key: string };
  broken: { key: string };
  permanent: { key: string };
  slow: { key: string };
  heavy: { key: string };
}

/** What the cases tune on a queue; everything else is the kind's test defaults. */
export interface CaseQueueOptions {
  backoffMs?: number;
  heavyConcurrency?: number;
  lightConcurrency?: number;
}

/**
 * The queues of one test. They share the test app's database and clock, and whatever other store
 * their kind uses: two queues of a group are two server processes of one instance.
 */
export interface QueueGroup {
  make(options?: CaseQueueOptions): JobQueue<TestJobs>;
  /** Stops every queue made, and removes what they left in their stores. */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A promise and the function that settles it, for handlers that wait on the test. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

export function jobQueueCases(h: { t: TestApp }, openGroup: (t: TestApp) => QueueGroup): void {
  let group: QueueGroup;
  beforeEach(async () => {
    // The tests share the app's database: each starts from an empty table.
    await h.t.ctx.db.kysely.deleteFrom('jobs').execute();
    group = openGroup(h.t);
  });
  afterEach(() => group.close());
  const queue = (options: CaseQueueOptions = {}) => group.make({ backoffMs: 1000, ...options });
  const jobRow = (id: string) =>
    h.t.ctx.db.kysely.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('runs a job with its payload round-tripped through JSON, and marks it done', async () => {
    const q = queue();
    const seen: unknown[] = [];
    q.register('echo', {
      run: (payload, job) => {
        seen.push({ payload, attempt: job.attempt, maxAttempts: job.maxAttempts, name: job.name, id: job.id });
        return Promise.resolve();
      },
    });
    const payload = { n: 42, s: 'é"\n', nested: { list: [1, 2], flag: true, none: null } };
    const id = await q.enqueue(h.t.ctx.db.kysely, 'echo', payload);
    expect((await jobRow(id)).status).toBe('queued');
    await q.drain();
    expect(seen).toEqual([{ payload, attempt: 1, maxAttempts: 3, name: 'echo', id }]);
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 1, last_error: null, locked_until: null });
  });

  it('drains only the names it is given, and leaves the other jobs queued', async () => {
    const q = queue();
    const ran: string[] = [];
    const record = (name: string) => ({
      run: ({ key }: { key: string }) => {
        ran.push(`${name} ${key}`);
        return Promise.resolve();
      },
    });
    q.register('flaky', record('flaky'));
    q.register('broken', record('broken'));
    const kept = await q.enqueue(h.t.ctx.db.kysely, 'broken', { key: 'kept' });
    await q.enqueue(h.t.ctx.db.kysely, 'flaky', { key: 'one' });
    await q.enqueue(h.t.ctx.db.kysely, 'flaky', { key: 'two' });
    await q.drain(['flaky']);
    // Claimed in the same millisecond: in either order.
    expect([...ran].sort()).toEqual(['flaky one', 'flaky two']);
    expect((await jobRow(kept)).status).toBe('queued');
    await q.drain();
    expect(ran).toHaveLength(3);
    expect(ran[2]).toBe('broken kept');
  });

  it('drains the jobs that its jobs enqueue, and waits for a job not yet due only once it is due', async () => {
    const q = queue();
    const ran: string[] = [];
    q.register('slow', {
      run: async ({ key }) => {
        ran.push(`slow ${key}`);
        await q.enqueue(h.t.ctx.db.kysely, 'flaky', { key: `after ${key}` });
        await q.enqueue(h.t.ctx.db.kysely, 'flaky', { key: `later ${key}` }, { delayMs: 5000 });
      },
    });
    q.register('flaky', {
      run: ({ key }) => {
        ran.push(`flaky ${key}`);
        return Promise.resolve();
      },
    });
    await q.enqueue(h.t.ctx.db.kysely, 'slow', { key: 'a' });
    await q.drain();
    expect(ran).toEqual(['slow a', 'flaky after a']);
    h.t.clock.advance(5000);
    await q.drain();
    expect(ran).toEqual(['slow a', 'flaky after a', 'flaky later a']);
  });

  it('records a unique job once while one like it waits, and anew once that one has started', async () => {
    const q = queue();
    const ran: string[] = [];
    q.register('flaky', {
      run: ({ key }) => {
        ran.push(key);
        return Promise.resolve();
      },
    });
    const db = h.t.ctx.db.kysely;
    const first = await q.enqueue(db, 'flaky', { key: 'u' }, { delayMs: 5000, unique: true });
    h.t.clock.advance(1000);
    // The same payload joins the waiting job (its due time stays); another payload is its own job.
    expect(await q.enqueue(db, 'flaky', { key: 'u' }, { delayMs: 5000, unique: true })).toBe(first);
    const other = await q.enqueue(db, 'flaky', { key: 'v' }, { delayMs: 5000, unique: true });
    expect(other).not.toBe(first);
    // Without `unique`, a job is always recorded.
    const plain = await q.enqueue(db, 'flaky', { key: 'u' }, { delayMs: 5000 });
    expect(plain).not.toBe(first);
    expect(Number((await jobRow(first)).run_after)).toBe(h.t.clock.now() - 1000 + 5000);
    h.t.clock.advance(5000);
    await q.drain();
    expect(ran.sort()).toEqual(['u', 'u', 'v']);
    // The waiting job ran: the next unique one is recorded anew.
    const next = await q.enqueue(db, 'flaky', { key: 'u' }, { unique: true });
    expect([first, other, plain]).not.toContain(next);
    expect((await jobRow(next)).status).toBe('queued');
    // Several at once: a waiting one stands for its payload, and equal payloads of the list are one.
    const many = await q.enqueueMany(db, 'flaky', [{ key: 'u' }, { key: 'w' }, { key: 'w' }, { key: 'x' }], {
      unique: true,
    });
    expect(many[0]).toBe(next);
    expect(many[1]).toBe(many[2]);
    expect(new Set(many).size).toBe(3);
    expect(await q.enqueueMany(db, 'flaky', [])).toEqual([]);
    await q.drain();
    expect(ran.sort()).toEqual(['u', 'u', 'u', 'v', 'w', 'x']);
  });

  it('enqueues inside the caller transaction: a rolled-back transaction leaves no job', async () => {
    const q = queue();
    let id = '';
    await expect(
      h.t.ctx.db.kysely.transaction().execute(async (tx) => {
        id = await q.enqueue(tx, 'echo', { n: 1, s: '', nested: { list: [], flag: false, none: null } });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    const rows = await h.t.ctx.db.kysely.selectFrom('jobs').select('id').where('id', '=', id).execute();
    expect(rows).toEqual([]);
  });

  it('retries a failing job with exponential backoff by the clock until it succeeds', async () => {
    const q = queue();
    let calls = 0;
    q.register('flaky', {
      run: () => {
        calls += 1;
        return calls <= 2 ? Promise.reject(new Error(`failure ${calls}`)) : Promise.resolve();
      },
    });
    const start = h.t.clock.now();
    const id = await q.enqueue(h.t.ctx.db.kysely, 'flaky', { key: 'a' });
    await q.drain();
    expect(calls).toBe(1);
    expect(await jobRow(id)).toMatchObject({
      status: 'queued',
      attempts: 1,
      run_after: start + 1000,
      last_error: 'failure 1',
    });
    // Not due yet: nothing runs.
    h.t.clock.advance(999);
    await q.drain();
    expect(calls).toBe(1);
    h.t.clock.advance(1);
    await q.drain();
    expect(calls).toBe(2);
    // The second wait is twice as long.
    expect(await jobRow(id)).toMatchObject({ status: 'queued', attempts: 2, run_after: start + 1000 + 2000 });
    h.t.clock.advance(2000);
    await q.drain();
    expect(calls).toBe(3);
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 3, last_error: null });
  });

  it('gives up after max attempts and calls onFailure once; a permanent error is not retried', async () => {
    const q = queue({ backoffMs: 1 });
    const failures: string[] = [];
    q.register('broken', {
      run: () => Promise.reject(new Error('always')),
      onFailure: (payload, error, job) => {
        failures.push(`${payload.key}:${(error as Error).message}:${job.attempt}/${job.maxAttempts}`);
        return Promise.resolve();
      },
    });
    q.register('permanent', {
      run: () => Promise.reject(new PermanentJobError('unreadable')),
      onFailure: (payload) => {
        failures.push(`${payload.key}:permanent`);
        return Promise.resolve();
      },
    });
    const broken = await q.enqueue(h.t.ctx.db.kysely, 'broken', { key: 'b' }, { maxAttempts: 2 });
    const permanent = await q.enqueue(h.t.ctx.db.kysely, 'permanent', { key: 'p' });
    await q.drain();
    expect(failures).toEqual(['p:permanent']);
    h.t.clock.advance(10);
    await q.drain();
    expect(failures.sort()).toEqual(['b:always:2/2', 'p:permanent']);
    expect(await jobRow(broken)).toMatchObject({ status: 'failed', attempts: 2, last_error: 'always' });
    expect(await jobRow(permanent)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'unreadable' });
  });

  it('stop() aborts a running job and hands it back without counting the run', async () => {
    const first = queue();
    const started = gate();
    first.register('slow', {
      run: (_payload, job) =>
        new Promise<void>((_resolve, reject) => {
          started.open();
          job.signal.addEventListener('abort', () => reject(new Error('killed')));
        }),
    });
    const id = await first.enqueue(h.t.ctx.db.kysely, 'slow', { key: 'interrupted' });
    first.start();
    await started.promise;
    expect((await jobRow(id)).status).toBe('running');
    await first.stop();
    expect(await jobRow(id)).toMatchObject({ status: 'queued', attempts: 0, locked_until: null });

    const second = queue();
    const runs: number[] = [];
    second.register('slow', {
      run: (_payload, job) => {
        runs.push(job.attempt);
        return Promise.resolve();
      },
    });
    await second.drain();
    expect(runs).toEqual([1]);
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('a run that finishes despite stop() is done, and never runs again', async () => {
    const first = queue();
    const started = gate();
    first.register('slow', {
      // Like a mail already handed to the SMTP server: the abort comes too late to undo it.
      run: (_payload, job) =>
        new Promise<void>((resolve) => {
          started.open();
          job.signal.addEventListener('abort', () => resolve());
        }),
    });
    const id = await first.enqueue(h.t.ctx.db.kysely, 'slow', { key: 'sent' });
    first.start();
    await started.promise;
    await first.stop();
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 1 });

    const second = queue();
    const runs: string[] = [];
    second.register('slow', {
      run: ({ key }) => {
        runs.push(key);
        return Promise.resolve();
      },
    });
    await second.drain();
    expect(runs).toEqual([]);
  });

  it('never runs more heavy jobs at once than its limit, and two runners never run a job twice', async () => {
    const runners = [queue({ heavyConcurrency: 2 }), queue({ heavyConcurrency: 2 })];
    const active = [0, 0];
    const peak = [0, 0];
    const seen: string[] = [];
    runners.forEach((q, i) =>
      q.register('heavy', {
        heavy: true,
        run: async (payload) => {
          seen.push(payload.key);
          active[i] = (active[i] ?? 0) + 1;
          peak[i] = Math.max(peak[i] ?? 0, active[i] ?? 0);
          await sleep(30);
          active[i] = (active[i] ?? 0) - 1;
        },
      }),
    );
    const keys = Array.from({ length: 10 }, (_, i) => `job-${i}`);
    for (const key of keys) await runners[0]?.enqueue(h.t.ctx.db.kysely, 'heavy', { key });
    await Promise.all(runners.map((q) => q.drain()));
    expect(seen.sort()).toEqual([...keys].sort());
    expect(Math.max(...peak)).toBeLessThanOrEqual(2);
    expect(Math.max(...peak)).toBe(2);
  });

  it('keeps separate limits for heavy and light jobs: full heavy slots do not hold light jobs back', async () => {
    const q = queue({ heavyConcurrency: 1, lightConcurrency: 2 });
    const release = gate();
    const active = { heavy: 0, light: 0 };
    const peak = { heavy: 0, light: 0 };
    const track = (kind: 'heavy' | 'light') => async () => {
      active[kind] += 1;
      peak[kind] = Math.max(peak[kind], active[kind]);
      await release.promise;
      active[kind] -= 1;
    };
    q.register('heavy', { heavy: true, run: track('heavy') });
    q.register('slow', { run: track('light') });
    for (let i = 0; i < 3; i++) await q.enqueue(h.t.ctx.db.kysely, 'heavy', { key: `h${i}` });
    for (let i = 0; i < 4; i++) await q.enqueue(h.t.ctx.db.kysely, 'slow', { key: `l${i}` });
    const drained = q.drain();
    await expect.poll(() => ({ ...active })).toEqual({ heavy: 1, light: 2 });
    release.open();
    await drained;
    expect(peak).toEqual({ heavy: 1, light: 2 });
    const statuses = await h.t.ctx.db.kysely.selectFrom('jobs').select('status').execute();
    expect(statuses.map((row) => row.status)).toEqual(Array.from({ length: 7 }, () => 'done'));
  });
}
