import { describe, expect, it } from 'vitest';
import { timeMedian } from './raw.ts';

/** A clock that only moves when a run says so: each run "takes" `msPerRun`. */
function fakeRuns(msPerRun: number) {
  let t = 0;
  let runs = 0;
  return {
    now: () => t,
    run: () => {
      runs += 1;
      t += msPerRun;
      return Promise.resolve();
    },
    runs: () => runs,
  };
}

describe('the median time of a raw query', () => {
  it('times at least minRuns runs of a quick query, and more while the budget lasts', async () => {
    const quick = fakeRuns(1);
    const median = await timeMedian(quick.run, { minRuns: 10, maxRuns: 1000, budgetMs: 50, now: quick.now });
    expect(median).toBe(1);
    // One untimed run, then runs until the 50 ms budget is spent.
    expect(quick.runs()).toBe(1 + 50);
  });

  it('stops a query slower than five budgets after three timed runs, below minRuns', async () => {
    const slow = fakeRuns(2000);
    const median = await timeMedian(slow.run, { minRuns: 10, maxRuns: 1000, budgetMs: 1000, now: slow.now });
    expect(median).toBe(2000);
    expect(slow.runs()).toBe(1 + 3);
  });

  it('still reaches minRuns when they fit in five budgets', async () => {
    const middling = fakeRuns(400);
    await timeMedian(middling.run, { minRuns: 10, maxRuns: 1000, budgetMs: 1000, now: middling.now });
    // 10 runs of 400 ms = 4,000 ms, within 5,000.
    expect(middling.runs()).toBe(1 + 10);
  });
});
