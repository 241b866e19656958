import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { initI18n } from '../lib/i18n';
import { CLOCK_TICK_MS, useNow, useRelativeTime } from './useRelativeTime';

const start = Date.UTC(2024, 5, 15, 12, 0, 0);

beforeAll(async () => {
  await initI18n('en_US');
});

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
  vi.setSystemTime(start);
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('useNow', () => {
  it('reads the current time on the first render, also after the clock stood still', () => {
    const { result } = renderHook(() => useNow());
    expect(result.current).toBe(start);
  });

  it('moves on every tick while mounted, and stops when the last user unmounts', () => {
    const first = renderHook(() => useNow());
    const second = renderHook(() => useNow());
    act(() => {
      vi.advanceTimersByTime(CLOCK_TICK_MS);
    });
    expect(first.result.current).toBe(start + CLOCK_TICK_MS);
    expect(second.result.current).toBe(start + CLOCK_TICK_MS);
    first.unmount();
    second.unmount();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('useRelativeTime', () => {
  it('formats an age and keeps it up to date', () => {
    const { result } = renderHook(() => useRelativeTime());
    const posted = start / 1000 - 30;
    expect(result.current(posted)).toBe('just now');
    act(() => {
      vi.advanceTimersByTime(2 * CLOCK_TICK_MS);
    });
    expect(result.current(posted)).toBe('1 minute ago');
    act(() => {
      vi.advanceTimersByTime(120 * CLOCK_TICK_MS);
    });
    expect(result.current(posted)).toBe('1 hour ago');
  });
});
