import { describe, expect, it } from 'vitest';
import type { Clock } from '../lib/clock.js';
import type { KithEvent } from './event-bus.js';
import { MemoryEventBus } from './memory-event-bus.js';

class ManualClock implements Clock {
  constructor(public t = 1_767_225_600_000) {}
  now(): number {
    return this.t;
  }
}

const file = (n: number): KithEvent => ({ type: 'file', userId: 'u', fileId: `f${n}` });

describe('MemoryEventBus (docs/api §11.4 replay)', () => {
  it('gives every event a growing id above any id of an earlier process', () => {
    const clock = new ManualClock();
    const earlier = new MemoryEventBus(clock);
    for (let i = 0; i < 500; i += 1) earlier.publish(file(i));
    clock.t += 1;
    const bus = new MemoryEventBus(clock);
    const ids: number[] = [];
    bus.subscribe((_event, published) => ids.push(published.id));
    bus.publish(file(1));
    bus.publish(file(2));
    expect(ids).toEqual([bus.lastId - 1, bus.lastId]);
    expect(ids[0]).toBeGreaterThan(earlier.lastId);
    expect(Number.isSafeInteger(bus.lastId)).toBe(true);
    // An id of the earlier process cannot be replayed here.
    expect(bus.since(earlier.lastId)).toBeNull();
  });

  it('returns the missed events, nothing when up to date, and null for unknown ids', () => {
    const bus = new MemoryEventBus(new ManualClock());
    const start = bus.lastId;
    expect(bus.since(start)).toEqual([]);
    for (let i = 1; i <= 3; i += 1) bus.publish(file(i));
    expect(bus.since(start + 1)?.map((p) => p.event)).toEqual([file(2), file(3)]);
    expect(bus.since(bus.lastId)).toEqual([]);
    expect(bus.since(bus.lastId + 1)).toBeNull();
    expect(bus.since(start - 1)).toBeNull();
    expect(bus.since(Number.NaN)).toBeNull();
  });

  it('keeps only the last maxEvents events and those younger than maxAgeMs', () => {
    const clock = new ManualClock();
    const bus = new MemoryEventBus(clock, { maxEvents: 3, maxAgeMs: 1000 });
    const start = bus.lastId;
    for (let i = 1; i <= 5; i += 1) bus.publish(file(i));
    // Events 1 and 2 have left the ring: a client that saw nothing after `start` or 1 cannot catch up.
    expect(bus.since(start)).toBeNull();
    expect(bus.since(start + 1)).toBeNull();
    expect(bus.since(start + 2)?.map((p) => p.event)).toEqual([file(3), file(4), file(5)]);
    clock.t += 1000;
    expect(bus.since(start + 2)?.length).toBe(3);
    clock.t += 1;
    expect(bus.since(start + 2)).toBeNull();
    // The first missed event is what counts: a newer one is still in reach.
    bus.publish(file(6));
    expect(bus.since(start + 5)?.map((p) => p.event)).toEqual([file(6)]);
  });

  it('never throws into the publisher', () => {
    const bus = new MemoryEventBus(new ManualClock());
    const heard: KithEvent[] = [];
    bus.subscribe(() => {
      throw new Error('broken listener');
    });
    const stop = bus.subscribe((event) => heard.push(event));
    expect(() => bus.publish(file(1))).not.toThrow();
    expect(heard).toEqual([file(1)]);
    stop();
    bus.publish(file(2));
    expect(heard).toEqual([file(1)]);

    let broken = false;
    const clock: Clock = {
      now: () => {
        if (broken) throw new Error('broken clock');
        return 1_767_225_600_000;
      },
    };
    const fragile = new MemoryEventBus(clock);
    const before = fragile.lastId;
    broken = true;
    expect(() => fragile.publish(file(3))).not.toThrow();
    broken = false;
    fragile.publish(file(4));
    expect(fragile.since(before)?.map((p) => [p.id, p.event])).toEqual([[before + 1, file(4)]]);
  });
});
