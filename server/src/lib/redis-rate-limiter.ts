import type { Redis } from 'ioredis';
import { ApiError } from './errors.js';
import type { Clock } from './clock.js';
import { MAX_WINDOW_MS, type RateLimiter } from './rate-limiter.js';

// The counts of every server process in one Redis (issue 19), so ten processes do not give ten
// times the login allowance. Each key is a sorted set of hit times (score = time in ms); a count
// is the number of scores inside the window, and each command is one atomic round trip.

/**
 * Count and retry-after in one atomic step: drop hits older than the longest window, count those
 * inside this window, and, at or over the limit, the time of the hit that must leave first.
 * KEYS[1] the set; ARGV: now, windowMs, limit, maxWindowMs.
 */
const COUNT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[4]))
local count = redis.call('ZCOUNT', KEYS[1], '(' .. (now - window), '+inf')
local retry = 0
if count >= limit then
  local blocking = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (now - window), '+inf', 'WITHSCORES', 'LIMIT', count - limit, 1)
  retry = tonumber(blocking[2]) + window - now
end
return { count, retry }
`;

/**
 * COUNT, then under the limit a hit (as HIT), in one script: nothing runs between the two.
 * KEYS[1] the set, KEYS[2] its sequence; ARGV: now, windowMs, limit, maxWindowMs.
 */
const TAKE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[4]))
local count = redis.call('ZCOUNT', KEYS[1], '(' .. (now - window), '+inf')
if count >= limit then
  local blocking = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (now - window), '+inf', 'WITHSCORES', 'LIMIT', count - limit, 1)
  return { 0, tonumber(blocking[2]) + window - now }
end
local seq = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1] .. '-' .. seq)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return { 1, 0 }
`;

/**
 * A hit: the time as score, a member unique even within one millisecond (a per-key sequence), and
 * the set expiring with the longest window. KEYS[1] the set, KEYS[2] its sequence; ARGV: now, maxWindowMs.
 */
const HIT = `
local seq = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1] .. '-' .. seq)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return seq
`;

/**
 * A Redis that does not answer: the throttled request is answered 503 at once (commands fail fast,
 * `connectRedis`), never let through unthrottled nor left waiting. Requests without a throttle
 * never touch Redis and keep working.
 */
function unavailable(): ApiError {
  return new ApiError(503, 'service_unavailable', 'A shared store does not answer. Try again in a moment', undefined, {
    'Retry-After': '5',
  });
}

export class RedisRateLimiter implements RateLimiter {
  /**
   * @param prefix namespaces the keys (`<REDIS_KEY_PREFIX>:rl:`; a test's own prefix in tests).
   */
  constructor(
    private readonly redis: Redis,
    private readonly clock: Clock,
    private readonly prefix: string,
  ) {}

  async count(key: string, windowMs: number, limit: number): Promise<{ count: number; retryAfterMs: number }> {
    const [count, retry] = (await this.run(() =>
      this.redis.eval(COUNT, 1, this.prefix + key, this.clock.now(), windowMs, limit, MAX_WINDOW_MS),
    )) as [number, number];
    return { count, retryAfterMs: Math.max(0, retry) };
  }

  async hit(key: string): Promise<void> {
    await this.run(() =>
      this.redis.eval(HIT, 2, this.prefix + key, `${this.prefix}${key}#seq`, this.clock.now(), MAX_WINDOW_MS),
    );
  }

  async take(key: string, windowMs: number, limit: number): Promise<{ allowed: boolean; retryAfterMs: number }> {
    const [allowed, retry] = (await this.run(() =>
      this.redis.eval(
        TAKE,
        2,
        this.prefix + key,
        `${this.prefix}${key}#seq`,
        this.clock.now(),
        windowMs,
        limit,
        MAX_WINDOW_MS,
      ),
    )) as [number, number];
    return { allowed: allowed === 1, retryAfterMs: Math.max(0, retry) };
  }

  async undo(key: string): Promise<void> {
    await this.run(() => this.redis.zpopmax(this.prefix + key));
  }

  async reset(key: string): Promise<void> {
    await this.run(() => this.redis.del(this.prefix + key));
  }

  private async run<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch {
      throw unavailable();
    }
  }
}
