import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { eventBusCases, fileEvent, listen, ManualClock, publishAll } from '../../test/event-bus-cases.js';
import { connectRedis } from '../lib/redis.js';
import { startRedisServer } from '../../test/redis-server.js';
import { RedisEventBus } from './redis-event-bus.js';

// The shared bus on the machine's real Redis, each bus under keys of its own (a fresh prefix), so
// runs and files never see each other's events.
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = () => `kith-test:${process.pid}:${randomBytes(6).toString('hex')}:`;

describe('RedisEventBus', () => {
  const connections: Redis[] = [];
  const connect = (url = REDIS_URL) => {
    const redis = connectRedis(url);
    connections.push(redis);
    return redis;
  };
  const prefixes: string[] = [];
  const fresh = () => {
    const p = prefix();
    prefixes.push(p);
    return p;
  };

  eventBusCases({
    make: (clock, limits) => new RedisEventBus(connect(), { prefix: fresh(), clock, ...(limits ? { limits } : {}) }),
    close: async () => {
      const admin = new Redis(REDIS_URL);
      for (const p of prefixes) {
        const keys = await admin.keys(`${p}*`);
        if (keys.length > 0) await admin.del(...keys);
      }
      await admin.quit();
      for (const redis of connections) redis.disconnect();
    },
  });

  it('hands an event published by one process to the listeners of another, and replays it there', async () => {
    const shared = fresh();
    const clock = new ManualClock();
    const a = new RedisEventBus(connect(), { prefix: shared, clock });
    const b = new RedisEventBus(connect(), { prefix: shared, clock });
    try {
      const onA = listen(a);
      const onB = listen(b);
      // Both readers follow the stream before anything is published (each starts after the newest
      // event it finds).
      await Promise.all([a.following(), b.following()]);
      await publishAll(a, onA, [fileEvent(0)]);
      await expect.poll(() => onB.length).toBe(1);
      a.publish(fileEvent(1));
      b.publish(fileEvent(2));
      await expect.poll(() => onB.map((p) => p.event)).toEqual([fileEvent(0), fileEvent(1), fileEvent(2)]);
      await expect.poll(() => onA.map((p) => p.id)).toEqual(onB.map((p) => p.id));
      // A client that saw the first event on A reconnects to B.
      expect((await b.since(onA[0]!.id))?.map((p) => p.event)).toEqual([fileEvent(1), fileEvent(2)]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('keeps its ids across a restart, so a client is replayed after a deploy', async () => {
    const shared = fresh();
    const clock = new ManualClock();
    const before = new RedisEventBus(connect(), { prefix: shared, clock });
    const [seen] = await publishAll(before, listen(before), [fileEvent(1), fileEvent(2)]);
    await before.close();
    // The new process's clock is behind (another machine): ids still grow.
    const after = new RedisEventBus(connect(), { prefix: shared, clock: new ManualClock(clock.t - 60_000) });
    try {
      const [third] = await publishAll(after, listen(after), [fileEvent(3)]);
      expect(third).toBeGreaterThan(seen!);
      expect((await after.since(seen!))?.map((p) => p.event)).toEqual([fileEvent(2), fileEvent(3)]);
    } finally {
      await after.close();
    }
  });

  it('keeps what is published while Redis is away, and delivers it when Redis is back', async () => {
    const shared = fresh();
    // A Redis of its own on a free port, which the test stops and starts again.
    const server = await startRedisServer();
    const bus = new RedisEventBus(connect(server.url), { prefix: shared, clock: new ManualClock() });
    try {
      const heard = listen(bus);
      await publishAll(bus, heard, [fileEvent(1)]);
      await server.stop();
      bus.publish(fileEvent(2));
      bus.publish(fileEvent(3));
      await server.start();
      await expect.poll(() => heard.map((p) => p.event), { timeout: 20_000 }).toEqual([1, 2, 3].map(fileEvent));
    } finally {
      await bus.close();
      await server.remove();
    }
  });
});
