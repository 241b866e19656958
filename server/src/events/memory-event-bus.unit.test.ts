import { describe, expect, it } from 'vitest';
import { eventBusCases, fileEvent, listen, ManualClock, publishAll } from '../../test/event-bus-cases.js';
import { MemoryEventBus } from './memory-event-bus.js';

describe('MemoryEventBus (docs/api §11.4 replay)', () => {
  eventBusCases({
    make: (clock, limits) => new MemoryEventBus(clock, limits),
    close: () => Promise.resolve(),
  });

  it('gives every event an id above any id of an earlier process, and does not replay those', async () => {
    const clock = new ManualClock();
    const earlier = new MemoryEventBus(clock);
    for (let i = 0; i < 500; i += 1) earlier.publish(fileEvent(i));
    clock.t += 1;
    const bus = new MemoryEventBus(clock);
    const ids = await publishAll(bus, listen(bus), [fileEvent(1), fileEvent(2)]);
    expect(ids).toEqual([bus.lastId - 1, bus.lastId]);
    expect(ids[0]).toBeGreaterThan(earlier.lastId);
    expect(await bus.since(earlier.lastId)).toBeNull();
  });

  it('replays from its starting point, the id a resync hands out before any event', async () => {
    const bus = new MemoryEventBus(new ManualClock());
    const start = bus.lastId;
    expect(await bus.since(start)).toEqual([]);
    bus.publish(fileEvent(1));
    expect((await bus.since(start))?.map((p) => p.event)).toEqual([fileEvent(1)]);
  });
});
