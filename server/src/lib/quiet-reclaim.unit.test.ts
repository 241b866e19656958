import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TRIM_DEBOUNCE_MS, trimStats } from './malloc-trim.js';
import { QuietReclaim } from './quiet-reclaim.js';

const MB = 1024 * 1024;

describe('QuietReclaim', () => {
  let heap = 40 * MB;
  let collect: ReturnType<typeof vi.fn<(options: NodeJS.GCOptions) => void>>;
  let release: ReturnType<typeof vi.fn<() => void>>;
  let quiet: QuietReclaim;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    heap = 40 * MB;
    collect = vi.fn<(options: NodeJS.GCOptions) => void>(() => {
      heap = 30 * MB;
    });
    release = vi.fn<() => void>();
    quiet = new QuietReclaim({
      quietMs: 1000,
      minGrowthBytes: 4 * MB,
      collect: collect as unknown as NodeJS.GCFunction,
      release,
      heapBytes: () => heap,
    });
  });

  afterEach(() => {
    quiet.stop();
    // A trim left pending under fake timers would keep `trimSoon` waiting in the next test.
    vi.runOnlyPendingTimers();
    vi.useRealTimers();
  });

  it('collects once requests have paused for quietMs, after the heap grew', () => {
    quiet.touch();
    heap = 60 * MB;
    vi.advanceTimersByTime(999);
    expect(release).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(release).toHaveBeenCalledTimes(1);
    expect(collect).toHaveBeenCalledWith({ type: 'major', flavor: 'last-resort' });
    expect(quiet.collections).toBe(1);
    // Then glibc's free memory goes back to the system, a moment later (lib/malloc-trim.ts).
    const trims = trimStats.runs;
    vi.advanceTimersByTime(TRIM_DEBOUNCE_MS);
    expect(trimStats.runs).toBe(trims + 1);
    // Nothing more until the next request.
    vi.advanceTimersByTime(10_000);
    expect(release).toHaveBeenCalledTimes(1);
    expect(trimStats.runs).toBe(trims + 1);
  });

  it('waits for a pause measured from the last request', () => {
    quiet.touch();
    heap = 60 * MB;
    for (let i = 0; i < 10; i += 1) {
      vi.advanceTimersByTime(500);
      quiet.touch();
    }
    expect(release).not.toHaveBeenCalled();
    vi.advanceTimersByTime(999);
    expect(release).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(release).toHaveBeenCalledTimes(1);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('releases but does not collect when the heap has not grown since the last collection', () => {
    heap = 60 * MB;
    quiet.touch();
    vi.advanceTimersByTime(1000 + TRIM_DEBOUNCE_MS);
    expect(collect).toHaveBeenCalledTimes(1);
    // A lone request afterwards: its garbage is not worth a full collection, but what `release`
    // freed is trimmed all the same.
    heap = 31 * MB;
    quiet.touch();
    const trims = trimStats.runs;
    vi.advanceTimersByTime(1000 + TRIM_DEBOUNCE_MS);
    expect(release).toHaveBeenCalledTimes(2);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(trimStats.runs).toBe(trims + 1);
    // After load again, it collects again.
    heap = 50 * MB;
    quiet.touch();
    vi.advanceTimersByTime(1000);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('without an exposed gc it only releases', () => {
    const alone = new QuietReclaim({
      quietMs: 1000,
      minGrowthBytes: 4 * MB,
      collect: undefined,
      release,
      heapBytes: () => 100 * MB,
    });
    alone.touch();
    vi.advanceTimersByTime(1000);
    expect(release).toHaveBeenCalledTimes(1);
    expect(alone.collections).toBe(0);
    alone.stop();
  });

  it('does nothing after stop', () => {
    heap = 60 * MB;
    quiet.touch();
    quiet.stop();
    vi.advanceTimersByTime(5000);
    expect(release).not.toHaveBeenCalled();
    expect(collect).not.toHaveBeenCalled();
  });
});
