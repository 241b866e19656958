import { describe, expect, it } from 'vitest';
import { keptAttempt, readPace, SLOW_FACTOR, slowMachine } from './pace.ts';

const fast = (n: number) => Array.from({ length: n }, (_, i) => 660 + (i % 5) * 10);

describe("the machine's pace", () => {
  it('reads a steady machine as usual', () => {
    const all = fast(200);
    const reading = readPace(all, 100);
    expect(reading?.samples).toBe(100);
    expect(reading?.slow_share).toBe(0);
    expect(reading?.pace).toBeGreaterThan(0.95);
    expect(reading?.pace).toBeLessThan(1.1);
    expect(slowMachine(reading)).toBe(false);
  });

  it('finds a slow window in a measurement, against the pace of the whole run', () => {
    // 40 samples of the scenario, 8 of them taken while a core ran at two thirds of its speed.
    const all = [...fast(100), ...fast(32), ...Array.from({ length: 8 }, () => 1000)];
    const reading = readPace(all, 100);
    expect(reading?.slow_share).toBeCloseTo(0.2, 6);
    expect(slowMachine(reading)).toBe(true);
  });

  it('reads a measurement slow from end to end as slow, since the usual pace comes from the whole run', () => {
    const all = [...fast(100), ...Array.from({ length: 40 }, () => 1000)];
    const reading = readPace(all, 100);
    expect(reading?.slow_share).toBe(1);
    expect(reading?.pace).toBeGreaterThan(1.4);
    expect(slowMachine(reading)).toBe(true);
  });

  it('lets a few slow samples pass, and counts only those past the factor', () => {
    const usual = 660;
    const barely = Math.floor(usual * SLOW_FACTOR) - 1;
    const all = [...fast(100), ...fast(36), 1000, 1000, 1000, 1000, ...Array.from({ length: 10 }, () => barely)];
    const reading = readPace(all, 100);
    expect(reading?.slow_share).toBeCloseTo(4 / 50, 6);
    expect(slowMachine(reading)).toBe(false);
  });

  it('has nothing to say without samples', () => {
    expect(readPace([], 0)).toBeNull();
    expect(readPace(fast(10), 10)).toBeNull();
    expect(slowMachine(null)).toBe(false);
  });

  it('keeps the attempt the probe saw slow the least, and counts the errors of the others', () => {
    const reading = (share: number) => ({ samples: 80, slow_share: share, pace: 1 });
    expect(keptAttempt([{ reading: reading(0.05), errors: 0 }])).toEqual({ index: 0, errorsElsewhere: 0 });
    const three = [
      { reading: reading(0.4), errors: 2 },
      { reading: reading(0.15), errors: 0 },
      { reading: reading(0.3), errors: 1 },
    ];
    expect(keptAttempt(three)).toEqual({ index: 1, errorsElsewhere: 3 });
    // Equals: the first is kept; no reading counts as not slow.
    expect(
      keptAttempt([
        { reading: reading(0.2), errors: 0 },
        { reading: reading(0.2), errors: 0 },
      ]).index,
    ).toBe(0);
    expect(
      keptAttempt([
        { reading: reading(0.2), errors: 0 },
        { reading: null, errors: 0 },
      ]).index,
    ).toBe(1);
  });
});
