import type { Clock } from './clock.js';

/**
 * Sliding-window counters for throttling (docs/api §1.6): in memory in embedded mode
 * (`MemoryRateLimiter`), in Redis when several processes share the counts (`RedisRateLimiter`,
 * lib/redis-rate-limiter.ts). Asynchronous, as the shared store is across the network.
 */
export interface RateLimiter {
  /**
   * How many hits `key` has in the last `windowMs`, and how long until it is back under `limit`
   * (0 when it already is).
   */
  count(key: string, windowMs: number, limit: number): Promise<{ count: number; retryAfterMs: number }>;
  /** Records one hit for `key`. */
  hit(key: string): Promise<void>;
  /**
   * Counts and, under `limit`, records one hit, as one atomic step: concurrent requests cannot all
   * pass a check before any of them is counted. Over the limit nothing is recorded.
   */
  take(key: string, windowMs: number, limit: number): Promise<{ allowed: boolean; retryAfterMs: number }>;
  /** Takes back the most recent hit of `key` (an attempt counted in advance that succeeded). */
  undo(key: string): Promise<void>;
  /** Forgets every hit of `key` (a successful login clears its failures). */
  reset(key: string): Promise<void>;
}

/** The longest window in use (1 hour): older hits never matter and may be dropped. */
export const MAX_WINDOW_MS = 60 * 60 * 1000;

export class MemoryRateLimiter implements RateLimiter {
  private readonly hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(private readonly clock: Clock) {}

  count(key: string, windowMs: number, limit: number): Promise<{ count: number; retryAfterMs: number }> {
    return Promise.resolve(this.countNow(key, windowMs, limit));
  }

  private countNow(key: string, windowMs: number, limit: number): { count: number; retryAfterMs: number } {
    const now = this.clock.now();
    const times = this.hits.get(key) ?? [];
    const recent = times.filter((t) => t > now - windowMs);
    // Back under the limit once all but `limit - 1` of the recent hits have expired.
    const blocking = recent.length >= limit ? recent[recent.length - limit] : undefined;
    return { count: recent.length, retryAfterMs: blocking === undefined ? 0 : blocking + windowMs - now };
  }

  take(key: string, windowMs: number, limit: number): Promise<{ allowed: boolean; retryAfterMs: number }> {
    const { count, retryAfterMs } = this.countNow(key, windowMs, limit);
    if (count >= limit) return Promise.resolve({ allowed: false, retryAfterMs });
    this.hitNow(key);
    return Promise.resolve({ allowed: true, retryAfterMs: 0 });
  }

  hit(key: string): Promise<void> {
    this.hitNow(key);
    return Promise.resolve();
  }

  private hitNow(key: string): void {
    const now = this.clock.now();
    this.sweep(now);
    const times = this.hits.get(key) ?? [];
    times.push(now);
    this.hits.set(key, times);
  }

  undo(key: string): Promise<void> {
    const times = this.hits.get(key);
    times?.pop();
    if (times?.length === 0) this.hits.delete(key);
    return Promise.resolve();
  }

  reset(key: string): Promise<void> {
    this.hits.delete(key);
    return Promise.resolve();
  }

  /** Drops expired hits now and then so memory stays bounded by recent traffic. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    const horizon = now - MAX_WINDOW_MS;
    for (const [key, times] of this.hits) {
      const kept = times.filter((t) => t > horizon);
      if (kept.length === 0) this.hits.delete(key);
      else this.hits.set(key, kept);
    }
  }
}
