import { describe, expect, it } from 'vitest';
import { FEED_STEP, initialVisibleCount, isNearBottom, shouldFetchMore } from './paging.ts';

describe('initialVisibleCount', () => {
  it('adds one card per full 68800 px² of screen', () => {
    expect(initialVisibleCount(1920, 1080)).toBe(1 + Math.floor((1920 * 1080) / 68800)); // 31
    expect(initialVisibleCount(1920, 1080)).toBe(31);
    expect(initialVisibleCount(375, 667)).toBe(4);
  });

  it('counts the area boundary exactly', () => {
    expect(initialVisibleCount(688, 100)).toBe(2);
    expect(initialVisibleCount(688, 99.99)).toBe(1);
    expect(initialVisibleCount(688, 200)).toBe(3);
  });

  it('shows one card for empty, negative or non-finite sizes', () => {
    expect(initialVisibleCount(0, 0)).toBe(1);
    expect(initialVisibleCount(-1000, -1000)).toBe(1);
    expect(initialVisibleCount(1000, -5)).toBe(1);
    expect(initialVisibleCount(Number.NaN, 800)).toBe(1);
    expect(initialVisibleCount(Number.POSITIVE_INFINITY, 800)).toBe(1);
  });
});

describe('isNearBottom', () => {
  const content = 5000;
  it('is true once the viewport bottom reaches the margin', () => {
    // Viewport bottom at 4400 = 5000 - 600.
    expect(isNearBottom({ scrollTop: 3400, viewportHeight: 1000, contentHeight: content })).toBe(true);
    expect(isNearBottom({ scrollTop: 3399, viewportHeight: 1000, contentHeight: content })).toBe(false);
  });

  it('honours a custom margin', () => {
    expect(isNearBottom({ scrollTop: 3399, viewportHeight: 1000, contentHeight: content }, 0)).toBe(false);
    expect(isNearBottom({ scrollTop: 4000, viewportHeight: 1000, contentHeight: content }, 0)).toBe(true);
  });

  it('is true when the content is shorter than the viewport', () => {
    expect(isNearBottom({ scrollTop: 0, viewportHeight: 1000, contentHeight: 300 })).toBe(true);
  });
});

describe('shouldFetchMore', () => {
  it('fetches when fewer than a step of cards remain beyond the visible ones', () => {
    expect(shouldFetchMore(21, 30, true)).toBe(true);
    expect(shouldFetchMore(20, 30, true)).toBe(false);
    expect(shouldFetchMore(20 + FEED_STEP, 30, true)).toBe(true);
  });

  it('never fetches when the server has no more', () => {
    expect(shouldFetchMore(30, 30, false)).toBe(false);
    expect(shouldFetchMore(100, 0, false)).toBe(false);
  });

  it('fetches when nothing is loaded yet', () => {
    expect(shouldFetchMore(1, 0, true)).toBe(true);
  });
});
