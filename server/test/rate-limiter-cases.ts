import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Clock } from '../src/lib/clock.js';
import { ApiError } from '../src/lib/errors.js';
import type { RateLimiter } from '../src/lib/rate-limiter.js';
import { Throttle } from '../src/lib/throttles.js';

// The behaviour every RateLimiter has, in memory (lib.unit.test.ts) and in Redis
// (redis-rate-limiter.int.test.ts), and the Throttle rules on top of it. Called inside a describe.

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** A clock the test moves by hand. */
export function fakeClock(start = 1_700_000_000_000): Clock & { t: number } {
  const clock = { t: start, now: () => clock.t };
  return clock;
}

/** The ApiError a promise rejects with (fails the test when it resolves or rejects otherwise). */
export async function rejectionOf(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  return expect.unreachable('expected an ApiError');
}

/** Makes limiters on a store; `close` ends the store after the cases. */
export interface LimiterStore {
  make(clock: Clock): RateLimiter;
  close(): Promise<void>;
}

export function rateLimiterCases(open: () => Promise<LimiterStore>): void {
  let store: LimiterStore;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(() => store.close());
  const setup = () => {
    const clock = fakeClock();
    return { clock, limiter: store.make(clock) };
  };

  it('counts the hits within the window', async () => {
    const { clock, limiter } = setup();
    expect(await limiter.count('k', MINUTE, 100)).toEqual({ count: 0, retryAfterMs: 0 });
    await limiter.hit('k');
    clock.t += 10 * SECOND;
    await limiter.hit('k');
    clock.t += 10 * SECOND;
    await limiter.hit('k');
    expect((await limiter.count('k', MINUTE, 100)).count).toBe(3);
  });

  it('forgets hits older than the window', async () => {
    const { clock, limiter } = setup();
    const start = clock.t;
    await limiter.hit('k'); // at start
    clock.t = start + 20 * SECOND;
    await limiter.hit('k'); // at start + 20 s
    clock.t = start + MINUTE - 1;
    expect((await limiter.count('k', MINUTE, 100)).count).toBe(2);
    clock.t = start + MINUTE;
    expect((await limiter.count('k', MINUTE, 100)).count).toBe(1);
    clock.t = start + 20 * SECOND + MINUTE;
    expect((await limiter.count('k', MINUTE, 100)).count).toBe(0);
  });

  it('counts each window separately for the same hits', async () => {
    const { clock, limiter } = setup();
    await limiter.hit('k');
    clock.t += 5 * MINUTE;
    await limiter.hit('k');
    expect((await limiter.count('k', 10 * MINUTE, 100)).count).toBe(2);
    expect((await limiter.count('k', MINUTE, 100)).count).toBe(1);
  });

  it('gives retryAfterMs as the time until the key is back under the limit', async () => {
    const { clock, limiter } = setup();
    const start = clock.t;
    await limiter.hit('k');
    clock.t = start + 10 * SECOND;
    await limiter.hit('k');
    clock.t = start + 25 * SECOND;
    // At the limit (2): free again when the oldest hit leaves the window.
    expect(await limiter.count('k', MINUTE, 2)).toEqual({ count: 2, retryAfterMs: 35 * SECOND });
    // Under the limit: no wait.
    expect(await limiter.count('k', MINUTE, 3)).toEqual({ count: 2, retryAfterMs: 0 });
    // Over the limit (1): both hits must leave, so the newest one decides.
    expect(await limiter.count('k', MINUTE, 1)).toEqual({ count: 2, retryAfterMs: 45 * SECOND });
    clock.t = start + MINUTE + 1;
    expect(await limiter.count('k', MINUTE, 1)).toEqual({ count: 1, retryAfterMs: 10 * SECOND - 1 });
  });

  it('counts two hits in the same millisecond as two', async () => {
    const { limiter } = setup();
    await Promise.all([limiter.hit('k'), limiter.hit('k')]);
    expect((await limiter.count('k', MINUTE, 100)).count).toBe(2);
  });

  it('take counts under the limit and refuses at it without counting, atomically', async () => {
    const { clock, limiter } = setup();
    const start = clock.t;
    // Twenty at once for a limit of 5: exactly five get through, whatever the interleaving.
    const answers = await Promise.all(Array.from({ length: 20 }, () => limiter.take('k', MINUTE, 5)));
    expect(answers.filter((answer) => answer.allowed)).toHaveLength(5);
    expect((await limiter.count('k', MINUTE, 5)).count).toBe(5);
    clock.t = start + 30 * SECOND;
    expect(await limiter.take('k', MINUTE, 5)).toEqual({ allowed: false, retryAfterMs: 30 * SECOND });
    clock.t = start + MINUTE;
    expect(await limiter.take('k', MINUTE, 5)).toEqual({ allowed: true, retryAfterMs: 0 });
  });

  it('undo takes back only the most recent hit', async () => {
    const { clock, limiter } = setup();
    await limiter.hit('k');
    clock.t += 1;
    await limiter.hit('k');
    await limiter.undo('k');
    expect((await limiter.count('k', MINUTE, 100)).count).toBe(1);
    await limiter.undo('k');
    await limiter.undo('k');
    expect(await limiter.count('k', MINUTE, 100)).toEqual({ count: 0, retryAfterMs: 0 });
  });

  it('reset forgets every hit of the key', async () => {
    const { limiter } = setup();
    await limiter.hit('k');
    await limiter.hit('k');
    await limiter.reset('k');
    expect(await limiter.count('k', MINUTE, 100)).toEqual({ count: 0, retryAfterMs: 0 });
    await limiter.hit('k');
    expect((await limiter.count('k', MINUTE, 100)).count).toBe(1);
  });

  it('keeps keys independent', async () => {
    const { limiter } = setup();
    await limiter.hit('a');
    await limiter.hit('a');
    await limiter.hit('b');
    expect((await limiter.count('a', MINUTE, 100)).count).toBe(2);
    expect((await limiter.count('b', MINUTE, 100)).count).toBe(1);
    expect((await limiter.count('c', MINUTE, 100)).count).toBe(0);
    await limiter.reset('a');
    expect((await limiter.count('a', MINUTE, 100)).count).toBe(0);
    expect((await limiter.count('b', MINUTE, 100)).count).toBe(1);
  });

  it('throttle: check does not count', async () => {
    const { limiter } = setup();
    const throttle = new Throttle(limiter, 'resetMailsPerAccount', 'user-1');
    for (let i = 0; i < 20; i++) await throttle.check();
    await throttle.hit();
    await throttle.hit();
    await throttle.check();
    await throttle.hit();
    expect((await rejectionOf(throttle.check())).code).toBe('too_many_requests');
  });

  it('throttle: 429 too_many_requests with Retry-After in whole seconds, at least 1', async () => {
    const { clock, limiter } = setup();
    const throttle = new Throttle(limiter, 'loginFailuresPerLoginAndIp', 'ana@example.org|203.0.113.7');
    for (let i = 0; i < 10; i++) await throttle.hit();
    clock.t += 5 * MINUTE;
    const error = await rejectionOf(throttle.check());
    expect(error.status).toBe(429);
    expect(error.headers['Retry-After']).toBe('600');
    expect(error.toBody()).toEqual({ code: 'too_many_requests', message: error.message, error: error.message });
    clock.t += 10 * MINUTE - 1; // 1 ms left
    expect((await rejectionOf(throttle.check())).headers['Retry-After']).toBe('1');
  });

  it('throttle: a request made after waiting Retry-After is allowed, even past the limit', async () => {
    // Failures are checked before and counted after an await (the password hash), so concurrent
    // attempts can push the count past the limit.
    const { clock, limiter } = setup();
    const throttle = new Throttle(limiter, 'loginFailuresPerLoginAndIp', 'y');
    for (let i = 0; i < 12; i++) {
      await throttle.hit();
      clock.t += MINUTE;
    }
    const retryAfter = Number((await rejectionOf(throttle.check())).headers['Retry-After']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    clock.t += retryAfter * SECOND;
    await throttle.check();
  });

  it('throttle: keeps subjects and rules apart, and reset clears one subject', async () => {
    const { limiter } = setup();
    const a = new Throttle(limiter, 'resetMailsPerAccount', 'a');
    for (let i = 0; i < 3; i++) await a.take();
    await rejectionOf(a.check());
    await new Throttle(limiter, 'resetMailsPerAccount', 'b').check();
    await new Throttle(limiter, 'resetMailPerIp', 'a').check();
    // Three hits under another rule do not reach the 3-per-hour rule of the same subject.
    for (let i = 0; i < 3; i++) await new Throttle(limiter, 'resetMailPerIp', 'c').take();
    await new Throttle(limiter, 'resetMailsPerAccount', 'c').check();
    await a.reset();
    await a.check();
  });
}
