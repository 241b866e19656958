import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { systemClock, type Clock } from '../lib/clock.js';
import { whenReady } from '../lib/redis.js';
import {
  REPLAY_LIMITS,
  type EventBus,
  type EventListener,
  type KithEvent,
  type PublishedEvent,
  type ReplayLimits,
} from './event-bus.js';

/**
 * Appends events to the stream under the next ids, atomically for every process: for each,
 * n = max(its time × 1000, previous n + 1), written as the stream id `⌊n/1000⌋-(n mod 1000)`, so
 * the SSE ids stay the numbers the embedded bus hands out (clients send them back as
 * `Last-Event-ID`) and grow even when processes' clocks disagree or a millisecond holds a thousand
 * events. The stream is trimmed to exactly the given length: the replay rules count on that bound.
 *
 * KEYS: stream, last id, number of events ever appended. ARGV: length kept, the newest id the
 * publisher has seen (a floor: should Redis lose its data, the ids still do not go back), then
 * (time in ms, event JSON) for each event. Returns the last n.
 */
const APPEND = `
local last = math.max(tonumber(redis.call('GET', KEYS[2]) or '0'), tonumber(ARGV[2]))
for i = 3, #ARGV, 2 do
  local n = tonumber(ARGV[i]) * 1000
  if last >= n then n = last + 1 end
  local id = string.format('%d-%d', math.floor(n / 1000), n % 1000)
  redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], id, 't', ARGV[i], 'e', ARGV[i + 1])
  last = n
end
redis.call('SET', KEYS[2], string.format('%d', last))
redis.call('INCRBY', KEYS[3], (#ARGV - 2) / 2)
return string.format('%d', last)
`;

/**
 * Events appended by one script call at most: a burst leaves in a few round trips. Never more than
 * the stream keeps, or a batch would trim its own first events before any reader saw them.
 */
const APPEND_BATCH = 500;

/** The Redis stream id of an event id, and back. */
function streamId(id: number): string {
  return `${Math.floor(id / 1000)}-${id % 1000}`;
}
function eventId(streamEntryId: string): number {
  const [ms, seq] = streamEntryId.split('-');
  return Number(ms) * 1000 + Number(seq);
}

type Entry = [id: string, fields: string[]];

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** A stream entry as a published event, or null when it is unreadable (skipped, never fatal). */
function parseEntry([id, fields]: Entry): PublishedEvent | null {
  let time: number | undefined;
  let event: KithEvent | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === 't') time = Number(fields[i + 1]);
    if (fields[i] === 'e') event = JSON.parse(fields[i + 1] ?? 'null') as KithEvent;
  }
  if (time === undefined || !Number.isFinite(time) || event === undefined || event === null) return null;
  return { id: eventId(id), time, event };
}

export interface RedisEventBusOptions {
  /** What the keys start with (`<REDIS_KEY_PREFIX>:`). */
  prefix: string;
  clock?: Clock;
  log?: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  limits?: ReplayLimits;
  /** How long one blocking read waits for new events before asking again (ms). Default 5 s. */
  blockMs?: number;
  /** Events waiting for Redis to come back, at most; older ones are dropped beyond. Default 10,000. */
  maxWaiting?: number;
}

/**
 * The scale-out event bus: one Redis stream shared by every server process.
 *
 * - `publish` queues the event and returns at once; a writer appends the queue to the stream in
 *   order (ids are given by Redis, see APPEND). While Redis is away the events wait in this
 *   process and leave when it comes back: streams receive them late, not never.
 * - A reader per process follows the stream with a blocking `XREAD` on its own connection and
 *   hands each event to the listeners, in id order, exactly once, whichever process published it.
 *   After an outage it carries on from the last id it handed out, so it misses nothing the stream
 *   still holds.
 * - `since` reads the stream's history: a client may reconnect to any process. The ids survive a
 *   restart (they live in Redis), so a reconnection across a deploy is replayed too.
 */
export class RedisEventBus implements EventBus {
  private readonly listeners = new Set<EventListener>();
  private readonly streamKey: string;
  private readonly counterKey: string;
  private readonly appendedKey: string;
  private readonly clock: Clock;
  private readonly limits: ReplayLimits;
  private readonly blockMs: number;
  private readonly maxWaiting: number;
  /** Events not yet in the stream, oldest first, with the time they were published. */
  private waiting: { time: number; json: string }[] = [];
  private writing: Promise<void> | null = null;
  /** Events were dropped for lack of room since the last successful write. */
  private dropping = false;
  /** The newest id handed to the listeners; null until the starting point is known. */
  private last: number | null = null;
  private closed = false;
  private readonly reader: Redis;
  private readonly reading: Promise<void>;
  /** Resolves once the reader knows where it starts: this process's events come after. */
  private readonly started: Promise<void>;
  private markStarted: () => void = () => undefined;
  private readonly closing: Promise<void>;
  private markClosing: () => void = () => undefined;

  /**
   * Starts following the stream. Redis may be away at start-up: the bus then follows it from when
   * it comes back (requests that need no Redis keep working meanwhile).
   */
  constructor(
    private readonly redis: Redis,
    private readonly options: RedisEventBusOptions,
  ) {
    this.streamKey = `${options.prefix}events`;
    this.counterKey = `${options.prefix}events:last`;
    this.appendedKey = `${options.prefix}events:appended`;
    this.clock = options.clock ?? systemClock;
    this.limits = options.limits ?? REPLAY_LIMITS;
    this.blockMs = options.blockMs ?? 5000;
    this.maxWaiting = options.maxWaiting ?? 10_000;
    // A connection of its own: a blocking read would hold up every other command on it.
    this.reader = redis.duplicate();
    // Failures reach the read loop, which logs them; the client's own events would only repeat them.
    this.reader.on('error', () => undefined);
    this.started = new Promise((resolve) => {
      this.markStarted = resolve;
    });
    this.closing = new Promise((resolve) => {
      this.markClosing = resolve;
    });
    this.reading = this.follow();
  }

  get lastId(): number {
    return this.last ?? 0;
  }

  /** Resolves once the reader follows the stream: events appended from then on reach the listeners. */
  following(): Promise<void> {
    return this.started;
  }

  publish(event: KithEvent): void {
    if (this.closed) return;
    try {
      this.waiting.push({ time: this.clock.now(), json: JSON.stringify(event) });
    } catch {
      // A broken clock must not reach the publisher (publishing never throws).
      return;
    }
    if (this.waiting.length > this.maxWaiting) {
      this.waiting.splice(0, this.waiting.length - this.maxWaiting);
      // Once per outage, not once per event dropped.
      if (!this.dropping) {
        this.dropping = true;
        this.options.log?.warn({ kept: this.maxWaiting }, 'Redis away too long: the oldest live events are dropped');
      }
    }
    this.writing ??= this.write().finally(() => {
      this.writing = null;
    });
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async since(lastId: number): Promise<PublishedEvent[] | null> {
    if (!Number.isSafeInteger(lastId) || lastId < 0) return null;
    // A process sees its own events: what it published before the call is in the stream first
    // (unless Redis is away: then the reads below fail and the client is told to resync).
    await Promise.race([this.writing, delay(2000)]);
    const newest = Number((await this.redis.get(this.counterKey)) ?? '0');
    if (lastId > newest) return null;
    if (lastId === newest) return [];
    let kept: Entry[];
    if (lastId === 0) {
      // 0 is where a reader starts before the first event of the instance (a resync can hand it
      // out): everything is missed, and can be given only if nothing was trimmed yet.
      const [appended, entries] = await Promise.all([
        this.redis.get(this.appendedKey),
        this.redis.xrange(this.streamKey, '-', '+', 'COUNT', this.limits.maxEvents + 1) as Promise<Entry[]>,
      ]);
      if (Number(appended) !== entries.length || entries.length > this.limits.maxEvents) return null;
      kept = entries;
    } else {
      // The entry of `lastId` itself must still be kept: then every later one is too (the stream
      // loses its oldest entries first). One more than the bound: the entry and maxEvents after it.
      const entries = (await this.redis.xrange(
        this.streamKey,
        streamId(lastId),
        '+',
        'COUNT',
        this.limits.maxEvents + 1,
      )) as Entry[];
      if (entries[0] === undefined || eventId(entries[0][0]) !== lastId) return null;
      kept = entries.slice(1);
    }
    const missed = kept.map(parseEntry).filter((p) => p !== null);
    const first = missed[0];
    if (first !== undefined && this.clock.now() - first.time > this.limits.maxAgeMs) return null;
    return missed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.markClosing();
    this.listeners.clear();
    // Events published just before a stop leave with it, unless Redis is away.
    await Promise.race([this.writing, delay(2000)]);
    this.reader.disconnect();
    await this.reading;
  }

  /** Appends the waiting events in order; on failure waits and tries again (until closed). */
  private async write(): Promise<void> {
    // Published before the reader knew its starting point, the events would be skipped by it.
    await Promise.race([this.started, this.closing]);
    let wait = 100;
    while (this.waiting.length > 0) {
      const batch = this.waiting.slice(0, Math.min(APPEND_BATCH, this.limits.maxEvents));
      try {
        await whenReady(this.redis, 2000);
        await this.redis.eval(
          APPEND,
          3,
          this.streamKey,
          this.counterKey,
          this.appendedKey,
          // The entry a client saw last must still be there to replay the maxEvents after it.
          this.limits.maxEvents + 1,
          this.last ?? 0,
          ...batch.flatMap((e) => [e.time, e.json]),
        );
        // Up to the batch's last event: events dropped meanwhile for lack of room left the front.
        this.waiting.splice(0, this.waiting.indexOf(batch[batch.length - 1]!) + 1);
        this.dropping = false;
        wait = 100;
      } catch (error) {
        if (this.closed) return;
        // Once per outage: the retries would fill the log.
        if (wait === 100) {
          this.options.log?.warn(
            { err: error, waiting: this.waiting.length },
            'could not publish a live event; retrying',
          );
        }
        await delay(wait);
        wait = Math.min(wait * 2, 2000);
      }
    }
  }

  /**
   * Reads the stream after the last id handed out, for as long as the bus is open. It starts after
   * the newest event at the time: the listeners want what happens from now on.
   */
  private async follow(): Promise<void> {
    let wait = 100;
    while (!this.closed) {
      try {
        await whenReady(this.reader, this.blockMs);
        if (this.last === null) {
          this.last = Number((await this.reader.get(this.counterKey)) ?? '0');
          this.markStarted();
        }
        const reply = await this.reader.xread(
          'COUNT',
          500,
          'BLOCK',
          this.blockMs,
          'STREAMS',
          this.streamKey,
          streamId(this.last),
        );
        wait = 100;
        for (const entry of reply?.[0]?.[1] ?? []) this.deliver(entry);
      } catch (error) {
        if (this.closed) return;
        // Not ready yet is not worth a line in the log; a failing Redis is.
        if (this.reader.status === 'ready' || wait === 100) {
          this.options.log?.warn({ err: error }, 'could not read live events from Redis; retrying');
        }
        await delay(wait);
        wait = Math.min(wait * 2, 2000);
      }
    }
  }

  private deliver(entry: Entry): void {
    const id = eventId(entry[0]);
    if (this.last !== null && id <= this.last) return;
    this.last = id;
    let published: PublishedEvent | null;
    try {
      published = parseEntry(entry);
    } catch {
      published = null;
    }
    if (published === null) {
      this.options.log?.error({ eventId: id }, 'an unreadable live event was skipped');
      return;
    }
    for (const listener of this.listeners) {
      try {
        listener(published.event, published);
      } catch {
        // A broken listener must not stop the others or the reader.
      }
    }
  }
}
