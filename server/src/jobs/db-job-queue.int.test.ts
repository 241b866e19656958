import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/harness.js';
import { jobQueueCases, type TestJobs } from '../../test/job-queue-cases.js';
import { DbJobQueue } from './db-job-queue.js';

describe('DbJobQueue', () => {
  const h = useTestApp();
  jobQueueCases(h, (t) => {
    const made: DbJobQueue<TestJobs>[] = [];
    return {
      make: (options) => {
        const q = new DbJobQueue<TestJobs>(t.ctx.db, { clock: t.clock, pollMs: 10, ...options });
        made.push(q);
        return q;
      },
      close: async () => {
        await Promise.all(made.map((q) => q.stop()));
      },
    };
  });

  // The embedded runner's own leases, on the rows.
  const queue = (options: ConstructorParameters<typeof DbJobQueue>[1] = {}) =>
    new DbJobQueue<TestJobs>(h.t.ctx.db, { clock: h.t.clock, pollMs: 10, backoffMs: 1000, ...options });
  const jobRow = (id: string) =>
    h.t.ctx.db.kysely.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

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

  it('uses one heavy slot per core by default', () => {
    expect(new DbJobQueue(h.t.ctx.db).heavyConcurrency).toBeGreaterThanOrEqual(1);
  });
});
