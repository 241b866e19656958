import { describe, expect, it } from 'vitest';
import {
  hasNext,
  hasPrevious,
  initialWindow,
  nextCount,
  previousCount,
  showAll,
  showNext,
  showPrevious,
} from './commentWindow.ts';

describe('initialWindow', () => {
  it('shows the last 5 without a focus', () => {
    expect(initialWindow(30)).toEqual({ start: 25, end: 30 });
    expect(initialWindow(5)).toEqual({ start: 0, end: 5 });
  });

  it('shows everything when there are fewer than 5', () => {
    expect(initialWindow(3)).toEqual({ start: 0, end: 3 });
    expect(initialWindow(0)).toEqual({ start: 0, end: 0 });
  });

  it('ignores a missing or out-of-range focus', () => {
    expect(initialWindow(30, -1)).toEqual({ start: 25, end: 30 });
    expect(initialWindow(30, 30)).toEqual({ start: 25, end: 30 });
    expect(initialWindow(0, 0)).toEqual({ start: 0, end: 0 });
  });

  it('centres the focused comment', () => {
    expect(initialWindow(30, 10)).toEqual({ start: 8, end: 13 });
    expect(initialWindow(30, 2)).toEqual({ start: 0, end: 5 });
  });

  it('clamps at the ends while keeping 5 visible', () => {
    expect(initialWindow(30, 0)).toEqual({ start: 0, end: 5 });
    expect(initialWindow(30, 1)).toEqual({ start: 0, end: 5 });
    expect(initialWindow(30, 28)).toEqual({ start: 25, end: 30 });
    expect(initialWindow(30, 29)).toEqual({ start: 25, end: 30 });
    expect(initialWindow(3, 1)).toEqual({ start: 0, end: 3 });
  });

  it('always contains the focused comment', () => {
    for (let count = 1; count < 15; count++) {
      for (let focus = 0; focus < count; focus++) {
        const w = initialWindow(count, focus);
        expect(w.start).toBeLessThanOrEqual(focus);
        expect(w.end).toBeGreaterThan(focus);
        expect(w.end - w.start).toBe(Math.min(5, count));
      }
    }
  });
});

describe('stepping', () => {
  it('reveals 10 earlier comments, clamped at the start', () => {
    expect(showPrevious({ start: 25, end: 30 }, 30)).toEqual({ start: 15, end: 30 });
    expect(showPrevious({ start: 7, end: 12 }, 30)).toEqual({ start: 0, end: 12 });
  });

  it('reveals 10 later comments, clamped at the end', () => {
    expect(showNext({ start: 8, end: 13 }, 30)).toEqual({ start: 8, end: 23 });
    expect(showNext({ start: 8, end: 23 }, 30)).toEqual({ start: 8, end: 30 });
  });

  it('clamps a window left over from a longer list', () => {
    expect(showNext({ start: 8, end: 40 }, 30)).toEqual({ start: 8, end: 30 });
  });

  it('shows all', () => {
    expect(showAll(12)).toEqual({ start: 0, end: 12 });
    expect(showAll(0)).toEqual({ start: 0, end: 0 });
  });
});

describe('links', () => {
  it('knows whether there is anything hidden on each side', () => {
    expect(hasPrevious({ start: 0, end: 5 })).toBe(false);
    expect(hasPrevious({ start: 1, end: 5 })).toBe(true);
    expect(hasNext({ start: 0, end: 5 }, 5)).toBe(false);
    expect(hasNext({ start: 0, end: 5 }, 6)).toBe(true);
  });

  it('counts what each link would reveal, at most 10', () => {
    expect(previousCount({ start: 25, end: 30 })).toBe(10);
    expect(previousCount({ start: 10, end: 15 })).toBe(10);
    expect(previousCount({ start: 3, end: 8 })).toBe(3);
    expect(previousCount({ start: 0, end: 5 })).toBe(0);
    expect(nextCount({ start: 0, end: 5 }, 30)).toBe(10);
    expect(nextCount({ start: 0, end: 5 }, 15)).toBe(10);
    expect(nextCount({ start: 0, end: 5 }, 9)).toBe(4);
    expect(nextCount({ start: 0, end: 5 }, 5)).toBe(0);
  });
});
