import { afterAll, expect, it } from 'vitest';
import type { EventBus, KithEvent, PublishedEvent, ReplayLimits } from '../src/events/event-bus.js';
import type { Clock } from '../src/lib/clock.js';

// The behaviour every EventBus has (docs/api §11.4 replay), in memory (memory-event-bus.unit.test.ts)
// and over Redis (redis-event-bus.int.test.ts). Called inside a describe.

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(public t = 1_767_225_600_000) {}
  now(): number {
    return this.t;
  }
}

export const fileEvent = (n: number): KithEvent => ({ type: 'file', userId: 'u', fileId: `f${n}` });

/** Builds a bus on a fresh store (its own Redis keys); `close` ends what the cases opened. */
export interface BusMaker {
  make(clock: Clock, limits?: ReplayLimits): EventBus;
  close(): Promise<void>;
}

/** Subscribes before anything is published and collects what the bus hands out. */
export function listen(bus: EventBus): PublishedEvent[] {
  const heard: PublishedEvent[] = [];
  bus.subscribe((_event, published) => heard.push(published));
  return heard;
}

/** Publishes `events` and waits until the listener has heard them all. */
export async function publishAll(bus: EventBus, heard: PublishedEvent[], events: KithEvent[]): Promise<number[]> {
  const before = heard.length;
  for (const event of events) bus.publish(event);
  await expect.poll(() => heard.length).toBe(before + events.length);
  return heard.slice(before).map((p) => p.id);
}

export function eventBusCases(maker: BusMaker): void {
  const opened: EventBus[] = [];
  const make = (clock: Clock, limits?: ReplayLimits) => {
    const bus = maker.make(clock, limits);
    opened.push(bus);
    return bus;
  };
  afterAll(async () => {
    await Promise.all(opened.map((bus) => bus.close()));
    await maker.close();
  });

  it('hands every event to every listener once, in order, with growing safe-integer ids', async () => {
    const bus = make(new ManualClock());
    const one = listen(bus);
    const two = listen(bus);
    const ids = await publishAll(bus, one, [fileEvent(1), fileEvent(2), fileEvent(3)]);
    expect(one.map((p) => p.event)).toEqual([fileEvent(1), fileEvent(2), fileEvent(3)]);
    await expect.poll(() => two.length).toBe(3);
    expect(ids.every(Number.isSafeInteger)).toBe(true);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
    expect(bus.lastId).toBe(ids[2]);
  });

  it('replays what was missed, nothing when up to date, and refuses ids it never handed out', async () => {
    const bus = make(new ManualClock());
    const heard = listen(bus);
    const [first, second, third] = await publishAll(bus, heard, [fileEvent(1), fileEvent(2), fileEvent(3)]);
    expect((await bus.since(first!))?.map((p) => [p.id, p.event])).toEqual([
      [second, fileEvent(2)],
      [third, fileEvent(3)],
    ]);
    expect(await bus.since(third!)).toEqual([]);
    expect(await bus.since(third! + 1)).toBeNull();
    // (first - 1 may be the embedded bus's starting point, which it does know.)
    expect(await bus.since(first! - 2)).toBeNull();
    expect(await bus.since(Number.NaN)).toBeNull();
    expect(await bus.since(-1)).toBeNull();
  });

  it('includes in a replay what this process published just before, delivered or not', async () => {
    const bus = make(new ManualClock());
    const heard = listen(bus);
    const [mark] = await publishAll(bus, heard, [fileEvent(0)]);
    for (let i = 1; i <= 20; i += 1) bus.publish(fileEvent(i));
    const missed = await bus.since(mark!);
    expect(missed?.map((p) => p.event)).toEqual(Array.from({ length: 20 }, (_, i) => fileEvent(i + 1)));
  });

  it('keeps only the last maxEvents events and those younger than maxAgeMs', async () => {
    const clock = new ManualClock();
    const bus = make(clock, { maxEvents: 3, maxAgeMs: 1000 });
    const heard = listen(bus);
    const ids = await publishAll(bus, heard, [1, 2, 3, 4, 5].map(fileEvent));
    // Events 1 and 2 have left: a client that saw only 1 cannot catch up; one that saw 2 can.
    expect(await bus.since(ids[0]!)).toBeNull();
    expect((await bus.since(ids[1]!))?.map((p) => p.event)).toEqual([fileEvent(3), fileEvent(4), fileEvent(5)]);
    clock.t += 1000;
    expect((await bus.since(ids[1]!))?.length).toBe(3);
    clock.t += 1;
    expect(await bus.since(ids[1]!)).toBeNull();
    // The first missed event is what counts: a newer one is still in reach.
    const [sixth] = await publishAll(bus, heard, [fileEvent(6)]);
    expect((await bus.since(ids[4]!))?.map((p) => [p.id, p.event])).toEqual([[sixth, fileEvent(6)]]);
  });

  it('never throws into the publisher, and a broken listener does not stop the others', async () => {
    const bus = make(new ManualClock());
    bus.subscribe(() => {
      throw new Error('broken listener');
    });
    const heard: KithEvent[] = [];
    const stop = bus.subscribe((event) => heard.push(event));
    const all = listen(bus);
    expect(() => bus.publish(fileEvent(1))).not.toThrow();
    await expect.poll(() => heard).toEqual([fileEvent(1)]);
    stop();
    await publishAll(bus, all, [fileEvent(2)]);
    expect(heard).toEqual([fileEvent(1)]);

    let broken = false;
    const clock: Clock = {
      now: () => {
        if (broken) throw new Error('broken clock');
        return 1_767_225_600_000;
      },
    };
    const fragile = make(clock);
    const fragileHeard = listen(fragile);
    const [before] = await publishAll(fragile, fragileHeard, [fileEvent(3)]);
    broken = true;
    expect(() => fragile.publish(fileEvent(4))).not.toThrow();
    broken = false;
    const [after] = await publishAll(fragile, fragileHeard, [fileEvent(5)]);
    expect((await fragile.since(before!))?.map((p) => [p.id, p.event])).toEqual([[after, fileEvent(5)]]);
  });
}
