import { systemClock, type Clock } from '../lib/clock.js';
import {
  REPLAY_LIMITS,
  type EventBus,
  type EventListener,
  type KithEvent,
  type PublishedEvent,
  type ReplayLimits,
} from './event-bus.js';

/**
 * The embedded event bus: listeners in this process, and the recent past for clients that
 * reconnect with `Last-Event-ID` (docs/api §11.4).
 *
 * Ids grow by one per event. They start at the boot time in milliseconds times 1000, so an id handed
 * out by an earlier process is always lower than any id of this one, and a client coming back after
 * a restart is told to resync instead of getting the wrong events (this holds unless the earlier
 * process published more than a thousand events per millisecond of its life). The ids stay below
 * 2^53 until the year 2255.
 */
export class MemoryEventBus implements EventBus {
  private readonly listeners = new Set<EventListener>();
  /** The last `limits.maxEvents` events, oldest first, as a ring: `ring[(head + i) % size]`. */
  private readonly ring: PublishedEvent[] = [];
  private head = 0;
  /** The id before the first one this process hands out. */
  private readonly baseId: number;
  private last: number;

  constructor(
    private readonly clock: Clock = systemClock,
    private readonly limits: ReplayLimits = REPLAY_LIMITS,
  ) {
    this.baseId = Math.floor(clock.now()) * 1000;
    this.last = this.baseId;
  }

  /** The id of the newest event, or the base id when nothing was published yet. */
  get lastId(): number {
    return this.last;
  }

  publish(event: KithEvent): void {
    let published: PublishedEvent;
    try {
      // The time first: if the clock fails, no id is used up (ids in the ring stay consecutive).
      published = { id: this.last + 1, time: this.clock.now(), event };
      this.last = published.id;
      if (this.ring.length < this.limits.maxEvents) {
        this.ring.push(published);
      } else {
        this.ring[this.head] = published;
        this.head = (this.head + 1) % this.ring.length;
      }
    } catch {
      // A broken clock must not reach the publisher (publishing never throws).
      return;
    }
    for (const listener of this.listeners) {
      try {
        listener(event, published);
      } catch {
        // A broken listener must not stop the others or the publisher.
      }
    }
  }

  /** Listeners run synchronously inside `publish`. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** An id of an earlier process counts as never handed out. */
  since(lastId: number): Promise<PublishedEvent[] | null> {
    return Promise.resolve(this.missedSince(lastId));
  }

  close(): Promise<void> {
    this.listeners.clear();
    return Promise.resolve();
  }

  private missedSince(lastId: number): PublishedEvent[] | null {
    if (!Number.isSafeInteger(lastId) || lastId < this.baseId || lastId > this.last) return null;
    if (lastId === this.last) return [];
    const oldest = this.at(0);
    if (oldest === undefined || lastId + 1 < oldest.id) return null;
    const offset = lastId + 1 - oldest.id;
    const firstMissed = this.at(offset);
    if (firstMissed === undefined || this.clock.now() - firstMissed.time > this.limits.maxAgeMs) return null;
    const missed: PublishedEvent[] = [];
    for (let i = offset; i < this.ring.length; i += 1) missed.push(this.at(i) as PublishedEvent);
    return missed;
  }

  /** The i-th kept event, oldest first. */
  private at(i: number): PublishedEvent | undefined {
    if (i < 0 || i >= this.ring.length) return undefined;
    return this.ring[(this.head + i) % this.ring.length];
  }
}
