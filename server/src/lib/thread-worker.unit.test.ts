import { afterEach, describe, expect, it, vi } from 'vitest';
import { trimStats } from './malloc-trim.js';
import { ThreadWorker, type ThreadWorkerErrors } from './thread-worker.js';

// A module the worker imports: doubles its input.
const DOUBLER = `data:text/javascript,${encodeURIComponent('export function double(n) { return n * 2; }')}`;

const fail = (what: string) => () => new Error(what);
const ERRORS: ThreadWorkerErrors = {
  timeout: fail('timeout'),
  died: fail('died'),
  stopped: fail('stopped'),
  threw: (message) => new Error(message),
  notStarted: (reason) => new Error(reason),
};
const workers: ThreadWorker<number, number>[] = [];
function doubler(limits: { idleReclaimMs?: number; idleStopMs?: number }): ThreadWorker<number, number> {
  const worker = new ThreadWorker<number, number>({
    module: DOUBLER,
    exported: 'double',
    setup: undefined,
    limits: { deadlineMs: 60_000, idleStopMs: 60_000, ...limits },
    errors: ERRORS,
  });
  workers.push(worker);
  return worker;
}
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

describe('ThreadWorker, idle', () => {
  it('asks an idle worker to shrink its heap after idleReclaimMs, and the same worker takes the next job', async () => {
    const worker = doubler({ idleReclaimMs: 20 });
    expect(await worker.run(2)).toBe(4);
    const thread = worker.threadId;
    await vi.waitFor(() => expect(worker.reclaims).toBe(1), { timeout: 10_000 });
    expect(await worker.run(5)).toBe(10);
    expect(worker.threadId).toBe(thread);
    // Once per pause: idle again after the job, it is asked again.
    await vi.waitFor(() => expect(worker.reclaims).toBe(2), { timeout: 10_000 });
    expect(worker.threadId).toBe(thread);
  });

  it("calls the module's reclaim function with its setup before the collection, then trims the C heap", async () => {
    // The module counts its reclaims, and its job answers that count plus the setup's offset.
    const source = [
      'let released = 0;',
      'export function count(n, setup) { return released * 100 + n + setup.offset; }',
      'export function release(setup) { released += setup.offset; }',
    ].join('\n');
    const trims = trimStats.runs;
    const worker = new ThreadWorker<number, number, { offset: number }>({
      module: `data:text/javascript,${encodeURIComponent(source)}`,
      exported: 'count',
      reclaim: 'release',
      setup: { offset: 1 },
      limits: { deadlineMs: 60_000, idleStopMs: 60_000, idleReclaimMs: 20 },
      errors: ERRORS,
    });
    workers.push(worker as unknown as ThreadWorker<number, number>);
    expect(await worker.run(5)).toBe(6);
    await vi.waitFor(() => expect(worker.reclaimed).toBe(1), { timeout: 10_000 });
    await vi.waitFor(() => expect(trimStats.runs).toBeGreaterThan(trims), { timeout: 10_000 });
    expect(await worker.run(5)).toBe(106);
  });

  it('without idleReclaimMs, an idle worker is only stopped, and the C heap trimmed once it has exited', async () => {
    const trims = trimStats.runs;
    const worker = doubler({ idleStopMs: 20 });
    expect(await worker.run(3)).toBe(6);
    await vi.waitFor(() => expect(worker.threadId).toBeNull(), { timeout: 10_000 });
    expect(worker.reclaims).toBe(0);
    await vi.waitFor(() => expect(trimStats.runs).toBeGreaterThan(trims), { timeout: 10_000 });
    expect(await worker.run(4)).toBe(8);
  });
});
