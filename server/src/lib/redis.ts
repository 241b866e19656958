import type * as IoRedis from 'ioredis';
import type { Redis } from 'ioredis';
import { lazyModule } from './lazy-module.js';

const ioredis = lazyModule<typeof IoRedis>('ioredis');

/** The connection of a server process: commands fail at once while it is down, and it reconnects. */
export function connectRedis(url: string): Redis {
  const redis = new (ioredis().Redis)(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    // Back again within a couple of seconds of Redis returning.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Errors reach the callers of each command; the client's own error events would only repeat them.
  redis.on('error', () => undefined);
  return redis;
}

/**
 * Resolves once the connection is ready, or rejects after `timeoutMs`: commands sent before would
 * fail at once (no offline queue), and a server must not start as if it shared what it cannot.
 */
export async function whenReady(redis: Redis, timeoutMs = 5_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      clearTimeout(timer);
      redis.off('ready', ready);
      redis.off('end', ended);
      if (error === undefined) resolve();
      else reject(error);
    };
    const ready = () => settle();
    // Disconnected for good (closing): no reason to wait out the timeout.
    const ended = () => settle(new Error('The Redis connection was closed'));
    const timer = setTimeout(() => settle(new Error(`Redis did not answer within ${timeoutMs / 1000} s`)), timeoutMs);
    redis.once('ready', ready);
    redis.once('end', ended);
  });
}
