import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../test/ports.js';
import { connectRedis } from './redis.js';
import { claimSlot } from './slots.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const HOUR = 60 * 60_000;

describe('claimSlot: scheduled work once per slot across processes', () => {
  it('lets exactly one of several processes run each slot', async () => {
    const config = { redisPrefix: `kith-test.${process.pid}.${randomBytes(6).toString('hex')}` };
    const processes = Array.from({ length: 4 }, () => ({ redis: connectRedis(REDIS_URL), config }));
    try {
      for (const slot of [100, 101]) {
        const won = await Promise.all(processes.map((p) => claimSlot(p, 'housekeeping', slot, HOUR)));
        expect(won.filter(Boolean)).toHaveLength(1);
      }
      // Another task's slot is its own.
      expect(await claimSlot(processes[0]!, 'other', 100, HOUR)).toBe(true);
      const ttl = await processes[0]!.redis.pttl(`${config.redisPrefix}:slot:housekeeping:100`);
      expect(ttl).toBeGreaterThan(HOUR);
      expect(ttl).toBeLessThanOrEqual(2 * HOUR);
    } finally {
      const keys = await processes[0]!.redis.keys(`${config.redisPrefix}:*`);
      if (keys.length > 0) await processes[0]!.redis.del(...keys);
      for (const p of processes) p.redis.disconnect();
    }
  });

  it('always runs in a process alone, and runs nothing while Redis does not answer', async () => {
    expect(await claimSlot({ redis: null, config: { redisPrefix: 'kith' } }, 'housekeeping', 1, HOUR)).toBe(true);
    const away = connectRedis(`redis://127.0.0.1:${await freePort()}`);
    try {
      expect(await claimSlot({ redis: away, config: { redisPrefix: 'kith' } }, 'housekeeping', 1, HOUR)).toBe(false);
    } finally {
      away.disconnect();
    }
  });
});
