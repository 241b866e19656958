import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { throttle } from './throttle.ts';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('throttle', () => {
  it('runs the first call at once', () => {
    const fn = vi.fn();
    const t = throttle(fn, 100);
    t(1);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(fn).toHaveBeenLastCalledWith(1);
  });

  it('runs only the last of the calls made during the wait, when it ends', () => {
    const fn = vi.fn<(n: number) => void>();
    const t = throttle(fn, 100);
    t(1);
    vi.advanceTimersByTime(10);
    t(2);
    t(3);
    vi.advanceTimersByTime(89);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(2);
    expect(fn).toHaveBeenLastCalledWith(3);
  });

  it('makes no trailing call when there was only one call', () => {
    const fn = vi.fn();
    const t = throttle(fn, 100);
    t();
    vi.advanceTimersByTime(1000);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('runs at most once per interval under continuous calls', () => {
    const fn = vi.fn();
    const t = throttle(fn, 100);
    for (let ms = 0; ms < 1000; ms += 10) {
      t(ms);
      vi.advanceTimersByTime(10);
    }
    // Leading at 0, then one trailing run at 100, 200, ... 1000 with the latest arguments.
    expect(fn.mock.calls.map((c) => c[0])).toEqual([0, 90, 190, 290, 390, 490, 590, 690, 790, 890, 990]);
    vi.advanceTimersByTime(1000);
    expect(fn).toHaveBeenCalledTimes(11);
  });

  it('counts the wait from the trailing call', () => {
    const fn = vi.fn();
    const t = throttle(fn, 100);
    t('a');
    t('b');
    vi.advanceTimersByTime(100); // trailing 'b' at 100
    expect(fn).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(50);
    t('c'); // 150: within 100 ms of the trailing call
    expect(fn).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(50);
    expect(fn).toHaveBeenCalledTimes(3);
    expect(fn).toHaveBeenLastCalledWith('c');
  });

  it('runs a call at once again after a quiet interval', () => {
    const fn = vi.fn();
    const t = throttle(fn, 100);
    t(1);
    vi.advanceTimersByTime(100);
    t(2);
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('cancel drops the pending trailing call and resets the wait', () => {
    const fn = vi.fn();
    const t = throttle(fn, 100);
    t(1);
    t(2);
    t.cancel();
    vi.advanceTimersByTime(500);
    expect(fn).toHaveBeenCalledTimes(1);
    t(3);
    expect(fn).toHaveBeenCalledTimes(2);
    t.cancel();
    t(4);
    expect(fn).toHaveBeenCalledTimes(3);
  });
});
