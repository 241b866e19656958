import { systemClock, type Clock } from '../lib/clock.js';
import type { EventBus, KithEvent } from './event-bus.js';

/** An event as the bus published it: its process-wide id and when it was published (ms). */
export interface PublishedEvent {
  id: number;
  time: number;
  event: KithEvent;
}

export interface ReplayLimits {
  /** How many recent events are kept for replay (docs/api §11.4: 1000). */
  maxEvents: number;
  /** How old the first missed event may be (docs/api §11.4: 5 minutes). */
  maxAgeMs: number;
}

export const REPLAY_LIMITS: ReplayLimits = { maxEvents: 1000, maxAgeMs: 5 * 60_000 };

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
  private readonly listeners = new Set<(event: KithEvent, published: PublishedEvent) => void>();
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

  /**
   * Listens to every event, with its id and time; returns a function that stops listening.
   * Listeners run synchronously inside `publish`: they should only note the event and go on.
   */
  subscribe(listener: (event: KithEvent, published: PublishedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The events published after `lastId`, oldest first, or `null` when they cannot all be given:
   * the first missed one has left the buffer (more than `maxEvents` since) or is older than
   * `maxAgeMs`, or `lastId` was never handed out by this process (an earlier process, or a
   * made-up id). The caller then sends `resync`.
   */
  since(lastId: number): PublishedEvent[] | null {
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
