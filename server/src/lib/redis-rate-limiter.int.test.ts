import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { fakeClock, rateLimiterCases } from '../../test/rate-limiter-cases.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { Throttle } from './throttles.js';

// The shared counts on the machine's real Redis (REDIS_URL, else 127.0.0.1:6379), each limiter
// under a prefix of its own so runs and files never see each other's keys.
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = () => `kith-test:${process.pid}:${randomBytes(6).toString('hex')}:`;

describe('RedisRateLimiter', () => {
  rateLimiterCases(() => {
    const redis = new Redis(REDIS_URL);
    return Promise.resolve({
      make: (clock) => new RedisRateLimiter(redis, clock, prefix()),
      close: async () => {
        await redis.quit();
      },
    });
  });

  it('shares the counts of two processes: each connection sees the other’s hits', async () => {
    const one = new Redis(REDIS_URL);
    const two = new Redis(REDIS_URL);
    try {
      const clock = fakeClock();
      const shared = prefix();
      const a = new Throttle(new RedisRateLimiter(one, clock, shared), 'signupPerIp', '203.0.113.9');
      const b = new Throttle(new RedisRateLimiter(two, clock, shared), 'signupPerIp', '203.0.113.9');
      // Ten signups from one address per hour, however many processes take them.
      for (let i = 0; i < 5; i++) await a.take();
      for (let i = 0; i < 5; i++) await b.take();
      await expect(a.take()).rejects.toMatchObject({ status: 429, code: 'too_many_requests' });
      await expect(b.take()).rejects.toMatchObject({ status: 429 });
    } finally {
      await Promise.all([one.quit(), two.quit()]);
    }
  });

  it('lets its keys expire with the longest window, leaving nothing behind', async () => {
    const redis = new Redis(REDIS_URL);
    try {
      const p = prefix();
      await new RedisRateLimiter(redis, fakeClock(), p).hit('k');
      const ttl = await redis.pttl(`${p}k`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60 * 60 * 1000);
      await redis.del(`${p}k`, `${p}k#seq`);
    } finally {
      await redis.quit();
    }
  });
});
