import { describe, expect, it } from 'vitest';
import { emptyResult, fillRatios, formatTable, limitRps } from './report.ts';
import type { ScenarioResult } from './types.ts';

function result(name: string, rps: number, rawMs: number | null): ScenarioResult {
  return { ...emptyResult(name), rps, p50_1c_ms: rawMs === null ? null : rawMs * 2, raw_ms: rawMs };
}

describe('the machine limit of a read', () => {
  it('is the rate of bare HTTP plus one run of the raw SQL', () => {
    // The example: 29,205 req/s bare, 0.039 ms of SQL → about 13,654 req/s.
    expect(limitRps(29_205, 0.039)).toBeCloseTo(13_654, 0);
    expect(limitRps(10_000, 0)).toBeCloseTo(10_000, 6);
    expect(limitRps(null, 1)).toBeNull();
    expect(limitRps(10_000, null)).toBeNull();
  });

  it('fills every ratio, and SQLite shares only where SQLite measured the scenario', () => {
    const results = [result('page', 5_000, 0.1), result('feed', 500, null), result('events', 300, null)];
    fillRatios(results, 10_000, new Map([['page', 10_000]]));
    const [page, feed, events] = results;
    expect(page?.limit_rps).toBeCloseTo(5_000, 6);
    expect(page?.limit_ratio).toBeCloseTo(1, 6);
    expect(page?.ratio).toBeCloseTo(0.5, 6);
    expect(page?.raw_ratio).toBeCloseTo(2, 6);
    expect(page?.of_sqlite).toBeCloseTo(0.5, 6);
    expect(feed?.limit_rps).toBeNull();
    expect(feed?.of_sqlite).toBeNull();
    expect(events?.baseline_rps).toBeNull();
    const table = formatTable(results);
    expect(table).toContain('of sqlite');
    expect(table.split('\n').find((line) => line.includes('page'))).toContain('100.0 %');
  });

  it("sets a read against the baseline measured just before it, the others against the run's", () => {
    const own = { ...result('message', 3_000, 0.1), baseline_rps: 5_000 };
    const results = [own, result('page', 3_000, 0.1)];
    fillRatios(results, 10_000, null);
    const [message, page] = results;
    expect(message?.baseline_rps).toBe(5_000);
    expect(message?.limit_rps).toBeCloseTo(3_333.3, 1);
    expect(message?.limit_ratio).toBeCloseTo(0.9, 6);
    expect(message?.ratio).toBeCloseTo(0.6, 6);
    expect(page?.baseline_rps).toBe(10_000);
    expect(page?.limit_rps).toBeCloseTo(5_000, 6);
  });

  it('leaves the SQLite column out of a run that has nothing to compare with', () => {
    const results = [result('page', 5_000, 0.1)];
    fillRatios(results, 10_000, null);
    expect(formatTable(results)).not.toContain('of sqlite');
  });
});
