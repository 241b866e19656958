import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/harness.js';
import { DbJobQueue } from './db-job-queue.js';
import { PermanentJobError } from './job-queue.js';

interface TestJobs {
  echo: { n: number; s: string; nested: { list: number[]; flag: boolean; none: null } };
  flaky: { key: string };
  broken: { key: string };
  permanent: { key: string };
  slow: { key: string };
  heavy: { key: string };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DbJobQueue', () => {
  const h = useTestApp();
  const queue = (options: ConstructorParameters<typeof DbJobQueue>[1] = {}) =>
    new DbJobQueue<TestJobs>(h.t.ctx.db, { clock: h.t.clock, pollMs: 10, backoffMs: 1000, ...options });
  const jobRow = (id: string) =>
    h.t.ctx.db.kysely.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('runs a job with its payload round-tripped through JSON, and marks it done', async () => {
    const q = queue();
    const seen: unknown[] = [];
    q.register('echo', {
      run: (payload, job) => {
        seen.push({ payload, attempt: job.attempt, name: job.name });
        return Promise.resolve();
      },
    });
    const payload = { n: 42, s: 'é"\n', nested: { list: [1, 2], flag: true, none: null } };
    const id = await q.enqueue(h.t.ctx.db.kysely, 'echo', payload);
    expect((await jobRow(id)).status).toBe('queued');
    await q.drain();
    expect(seen).toEqual([{ payload, attempt: 1, name: 'echo' }]);
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

  it('retries a failing job with exponential backoff until it succeeds', async () => {
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
      onFailure: (payload, error) => {
        failures.push(`${payload.key}:${(error as Error).message}`);
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
    h.t.clock.advance(10);
    await q.drain();
    expect(failures.sort()).toEqual(['b:always', 'p:permanent']);
    expect(await jobRow(broken)).toMatchObject({ status: 'failed', attempts: 2, last_error: 'always' });
    expect(await jobRow(permanent)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'unreadable' });
  });

  it('takes up again a job left running by a runner that died, once its lease expired', async () => {
    const first = queue({ leaseMs: 5000 });
    const id = await first.enqueue(h.t.ctx.db.kysely, 'slow', { key: 'crashed' });
    // As if a runner claimed it and the process died: running, lease not yet expired.
    await h.t.ctx.db.kysely
      .updateTable('jobs')
      .set({ status: 'running', attempts: 1, locked_until: h.t.clock.now() + 5000 })
      .where('id', '=', id)
      .execute();
    const second = queue({ leaseMs: 5000 });
    const runs: string[] = [];
    second.register('slow', {
      run: (payload) => {
        runs.push(payload.key);
        return Promise.resolve();
      },
    });
    await second.drain();
    expect(runs).toEqual([]);
    h.t.clock.advance(5001);
    await second.drain();
    expect(runs).toEqual(['crashed']);
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 2 });
  });

  it('gives a job up instead of looping when its runner keeps dying on the last attempt', async () => {
    const q = queue({ leaseMs: 100 });
    const failed: string[] = [];
    q.register('slow', {
      run: () => Promise.resolve(),
      onFailure: (payload) => {
        failed.push(payload.key);
        return Promise.resolve();
      },
    });
    const id = await q.enqueue(h.t.ctx.db.kysely, 'slow', { key: 'doomed' }, { maxAttempts: 2 });
    await h.t.ctx.db.kysely
      .updateTable('jobs')
      .set({ status: 'running', attempts: 2, locked_until: h.t.clock.now() - 1 })
      .where('id', '=', id)
      .execute();
    await q.drain();
    expect(failed).toEqual(['doomed']);
    expect(await jobRow(id)).toMatchObject({ status: 'failed' });
  });

  it('stop() aborts a running job and queues it again without counting the run', async () => {
    const first = queue();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    first.register('slow', {
      run: (_payload, job) =>
        new Promise<void>((_resolve, reject) => {
          started();
          job.signal.addEventListener('abort', () => reject(new Error('killed')));
        }),
    });
    const id = await first.enqueue(h.t.ctx.db.kysely, 'slow', { key: 'interrupted' });
    first.start();
    await running;
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

  it('never runs more heavy jobs at once than its limit, and two runners never run a job twice', async () => {
    const runners = [queue({ heavyConcurrency: 2 }), queue({ heavyConcurrency: 2 })];
    let active = [0, 0];
    let peak = [0, 0];
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
    active = [0, 0];
    peak = [0, 0];
  });

  it('uses one heavy slot per core by default', () => {
    expect(new DbJobQueue(h.t.ctx.db).heavyConcurrency).toBeGreaterThanOrEqual(1);
  });
});
