import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { route } from '../../http/route.js';
import type { AppContext } from '../../context.js';
import { Throttle } from '../../lib/throttles.js';
import { invalidField } from '../../lib/errors.js';
import { forgetPresence, isDeviceId } from '../push/service.js';
import { EVENT_ID_HEADER } from '../auth/authenticate.js';
import { receivableBy, recipientsOf } from './audience.js';
import { REPLAY_LIMITS, type PublishedEvent } from '../../events/event-bus.js';
import { presentFrame, sseFrame } from './present.js';
import { usersStillAllowed } from '../users/queries.js';

/**
 * GET /api/events (docs/api §11.4): one Server-Sent Events stream per open tab or device.
 *
 * How an event travels, once per process whatever the number of streams:
 * 1. the bus hands it over synchronously after the commit, with its id;
 * 2. its recipients are found at once by the one visibility rule (`audience.ts`): the owner
 *    (notification, file), or the current members of the group (message, comment), read from the
 *    database for every event. Nothing is cached, so joining brings a group's events and leaving
 *    stops them from the very next event;
 * 3. if one of them has a stream open, the frame (`id`, `event`, `data`) is built once and the same
 *    string is written to each of their streams. Events go out in id order: their preparation runs
 *    concurrently, their delivery one after the other;
 * 4. `disconnect` (key reset, account deleted) ends the user's streams at once, outside the queue.
 *
 * A browser shares one stream among its tabs (the web client elects a leader tab). A user's sixth
 * stream closes their oldest rather than being refused; the closed one is told why and to wait a
 * minute (`closed` with `retry: 60000`), so two devices over the limit take turns slowly instead of
 * closing each other in a loop. Opening is throttled only to stop a runaway reconnection loop.
 *
 * A client coming back with `Last-Event-ID` gets the missed events from the bus's buffer, filtered
 * for it with the same rules at the time of the replay, or `resync` when they cannot all be given.
 */

export interface EventStreamOptions {
  /** A `: ping` comment this often keeps proxies from closing an idle stream (contract: 25 s). */
  pingIntervalMs: number;
  /** A stream is closed after this long; the client reconnects with `Last-Event-ID` (1 hour). */
  maxDurationMs: number;
  /** Open streams per user; opening one more closes the oldest (5). */
  maxStreamsPerUser: number;
  /** The reconnection delay the stream announces first (`retry: 5000`). */
  retryMs: number;
  /**
   * The reconnection delay told to the oldest stream when a sixth one closes it (`retry: 60000`).
   * Its client reconnects no sooner and then closes the next oldest: with more devices than the
   * limit, each takes its turn about once a minute, well under the opening throttle.
   */
  displacedRetryMs: number;
  /**
   * A client that does not read: once this much live output waits for it, its stream is closed
   * rather than kept growing in memory. It reconnects with `Last-Event-ID` and is replayed what it
   * missed (a replay waits for the client to read instead).
   */
  maxBufferedBytes: number;
}

export const STREAM_DEFAULTS: EventStreamOptions = {
  pingIntervalMs: 25_000,
  maxDurationMs: 60 * 60_000,
  maxStreamsPerUser: 5,
  retryMs: 5000,
  displacedRetryMs: 60_000,
  maxBufferedBytes: 4 * 1024 * 1024,
};

/** The reconnection delay a stream is told when its process stops. */
const SHUTDOWN_RETRY_MS = 500;

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
} as const;

/** The `Last-Event-ID` request header: absent, a number, or something this server never sent. */
type LastEventId = number | 'invalid' | undefined;

function readLastEventId(request: FastifyRequest): LastEventId {
  const header = request.headers['last-event-id'];
  const value = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
  if (value === '') return undefined;
  if (!/^\d{1,16}$/.test(value)) return 'invalid';
  const id = Number(value);
  return Number.isSafeInteger(id) ? id : 'invalid';
}

/** One open stream. Frames are written whole and only with growing ids. */
class Stream {
  closed = false;
  /** The newest id written (or known to the client); frames with a lower or equal id are skipped. */
  private lastSentId = 0;
  /** While the missed events are replayed, live frames wait here. */
  private pending: [number, string][] | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly userId: string,
    /** The browser's presence id, when it gave one (`?device=`). */
    readonly device: string | null,
    private readonly res: ServerResponse,
    private readonly maxBufferedBytes: number,
    private readonly onClose: (stream: Stream) => void,
  ) {}

  /** Holds live frames back until `endReplay`. */
  startReplay(): void {
    this.pending = [];
  }

  /** Sends the held-back live frames that came after the replayed ones, in order. */
  endReplay(upToId: number): void {
    this.lastSentId = Math.max(this.lastSentId, upToId);
    const pending = this.pending ?? [];
    this.pending = null;
    for (const [id, frame] of pending) this.emit(id, frame);
  }

  /** A live frame. */
  deliver(id: number, frame: string): void {
    if (this.pending !== null) this.pending.push([id, frame]);
    else this.emit(id, frame);
  }

  /** Writes a frame now, whatever came before (`resync`). */
  force(id: number, frame: string): void {
    this.lastSentId = id;
    this.write(frame);
  }

  /** Writes a frame now unless the client already has it. */
  emit(id: number, frame: string): void {
    if (id <= this.lastSentId) return;
    this.lastSentId = id;
    this.write(frame);
  }

  write(text: string): void {
    if (this.closed) return;
    try {
      this.res.write(text);
    } catch {
      // The connection is gone; its 'close' may not have come yet.
      this.close();
      return;
    }
    // A replay waits for the client instead (see `drained`); live frames cannot wait.
    if (this.pending === null && this.res.writableLength > this.maxBufferedBytes) this.close();
  }

  /** Resolves once the client has taken what was written (or the stream closed). */
  async drained(): Promise<void> {
    if (this.closed || !this.res.writableNeedDrain) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  /**
   * Closes the stream because its user opened one too many, with the reason and a longer delay
   * before reconnecting: a client that came straight back would close another of its user's streams.
   */
  displace(retryMs: number): void {
    this.write(`retry: ${retryMs}\nevent: closed\ndata: ${JSON.stringify({ reason: 'too_many_streams' })}\n\n`);
    this.close();
  }

  closeAfter(ms: number): void {
    this.timer = setTimeout(() => this.close(), ms);
    this.timer.unref();
  }

  /** Ends the stream (idempotent); the registry forgets it at once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.pending = null;
    this.onClose(this);
    if (!this.res.writableEnded) this.res.end();
  }
}

/** The open streams of one app, and the delivery of the bus's events to them. */
export class EventStreams {
  readonly options: EventStreamOptions;
  private readonly byUser = new Map<string, Stream[]>();
  private openCount = 0;
  private pingTimer: NodeJS.Timeout | undefined;
  /** Delivery in id order: each event waits for the one before it. */
  private queue: Promise<void> = Promise.resolve();
  /** Frames built once per event, kept for replays (as many as the bus keeps events). */
  private readonly frames = new Map<number, Promise<string | null>>();
  private readonly unsubscribe: () => void;
  private shuttingDown = false;

  constructor(
    private readonly ctx: AppContext,
    options: Partial<EventStreamOptions> = {},
  ) {
    this.options = { ...STREAM_DEFAULTS, ...options };
    this.unsubscribe = ctx.events.subscribe((_event, published) => this.onPublished(published));
  }

  /** How many streams are open (all users). */
  get size(): number {
    return this.openCount;
  }

  /** How many streams `userId` has open. */
  countOf(userId: string): number {
    return this.byUser.get(userId)?.length ?? 0;
  }

  /** Starts a stream on a hijacked reply: headers, `retry`, then replay or resync, then live events. */
  open(
    userId: string,
    device: string | null,
    request: FastifyRequest,
    reply: FastifyReply,
    lastEventId: LastEventId,
  ): void {
    const res = reply.raw;
    // The headers the app's hooks already set (X-Request-Id, nosniff, Referrer-Policy, CORS).
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) res.setHeader(name, typeof value === 'number' ? String(value) : value);
    }
    for (const [name, value] of Object.entries(SSE_HEADERS)) res.setHeader(name, value);
    // Where this stream's live events start (registered below, in the same turn): a client whose
    // earlier answers carry a lower id may have missed what came in between.
    res.setHeader(EVENT_ID_HEADER, String(this.ctx.events.lastId));
    res.writeHead(200);
    // Small frames leave at once. (The socket is missing under app.inject, which cannot stream anyway.)
    (request.raw.socket as Socket | undefined)?.setNoDelay(true);

    const stream = new Stream(userId, device, res, this.options.maxBufferedBytes, (s) => this.forget(s));
    res.on('close', () => stream.close());
    res.on('error', () => stream.close());
    if (this.shuttingDown) {
      stream.close();
      return;
    }
    this.register(stream);
    stream.closeAfter(this.options.maxDurationMs);
    stream.write(`retry: ${this.options.retryMs}\n\n`);
    if (lastEventId !== undefined) {
      stream.startReplay();
      void this.replay(stream, lastEventId);
    }
  }

  /** Ends every stream of `userId` (key reset, account deleted). */
  closeUser(userId: string): void {
    for (const stream of [...(this.byUser.get(userId) ?? [])]) stream.close();
  }

  /**
   * Ends every stream and stops listening: the app is shutting down. Each client is told to come
   * back at once rather than after the usual delay: behind a balancer, another process takes it.
   */
  shutdown(): void {
    this.shuttingDown = true;
    for (const streams of [...this.byUser.values()]) {
      for (const stream of [...streams]) {
        stream.write(`retry: ${SHUTDOWN_RETRY_MS}\n\n`);
        stream.close();
      }
    }
    this.unsubscribe();
  }

  private register(stream: Stream): void {
    const streams = this.byUser.get(stream.userId) ?? [];
    this.byUser.set(stream.userId, streams);
    // A sixth stream closes the oldest (docs/api §11.4), telling it why and to wait before coming back.
    while (streams.length >= this.options.maxStreamsPerUser && streams[0] !== undefined)
      streams[0].displace(this.options.displacedRetryMs);
    streams.push(stream);
    this.openCount += 1;
    if (this.pingTimer === undefined) {
      this.pingTimer = setInterval(() => this.ping(), this.options.pingIntervalMs);
      this.pingTimer.unref();
    }
  }

  private forget(stream: Stream): void {
    const streams = this.byUser.get(stream.userId);
    const index = streams?.indexOf(stream) ?? -1;
    if (streams === undefined || index < 0) return;
    streams.splice(index, 1);
    if (streams.length === 0) this.byUser.delete(stream.userId);
    this.openCount -= 1;
    // Its browser reports presence only while a stream is open (web: features/push/presence.ts).
    // Another stream of the same browser here (a tab reloading) still speaks for it; one on another
    // process is not known here, and that browser's next report restores what this removes. At
    // shutdown nothing is written: the database closes next, and the browsers report again wherever
    // they reconnect.
    const device = stream.device;
    if (!this.shuttingDown && device !== null && !streams.some((other) => other.device === device)) {
      forgetPresence(this.ctx, stream.userId, device).catch((error: unknown) =>
        this.ctx.log.error({ err: error }, 'could not forget a closed stream’s presence'),
      );
    }
    if (this.openCount === 0) {
      clearInterval(this.pingTimer);
      this.pingTimer = undefined;
    }
  }

  private ping(): void {
    for (const streams of [...this.byUser.values()]) for (const stream of [...streams]) stream.write(': ping\n\n');
    void this.closeLockedOut();
  }

  /**
   * Ends the streams of accounts disabled or deleted by another process. In scale-out mode the
   * `disconnect` event of `kith users disable|delete` reaches every process at once; an embedded
   * server shares no bus with the CLI, so it looks at each ping (one query per 500 open users).
   */
  private async closeLockedOut(): Promise<void> {
    const userIds = [...this.byUser.keys()];
    try {
      for (let start = 0; start < userIds.length; start += 500) {
        const batch = userIds.slice(start, start + 500);
        const allowed = await usersStillAllowed(this.ctx.db.kysely, batch);
        for (const userId of batch) if (!allowed.has(userId)) this.closeUser(userId);
      }
    } catch (error) {
      this.ctx.log.warn({ err: error }, 'could not check the accounts of open live streams');
    }
  }

  private onPublished(published: PublishedEvent): void {
    const { event } = published;
    if (event.type === 'disconnect') {
      this.closeUser(event.userId);
      return;
    }
    // Nobody listening: nothing to build now (a later replay builds the frame when asked).
    if (this.openCount === 0) return;
    const prepared = this.prepare(published);
    this.queue = this.queue
      .then(async () => {
        const delivery = await prepared;
        if (delivery === null) return;
        for (const userId of delivery.recipients) {
          for (const stream of [...(this.byUser.get(userId) ?? [])]) stream.deliver(published.id, delivery.frame);
        }
      })
      // The queue must go on whatever happens to one event.
      .catch((error: unknown) =>
        this.ctx.log.error({ err: error, eventId: published.id }, 'could not send a live event'),
      );
  }

  /** Who may see the event now and has a stream open, and the frame they get (never rejects). */
  private async prepare(published: PublishedEvent): Promise<{ recipients: string[]; frame: string } | null> {
    try {
      const allowed = await recipientsOf(this.ctx.db.kysely, published.event);
      const recipients = allowed.filter((id) => this.byUser.has(id));
      if (recipients.length === 0) return null;
      const frame = await this.frameOf(published);
      return frame === null ? null : { recipients, frame };
    } catch (error) {
      this.ctx.log.error({ err: error, eventId: published.id }, 'could not prepare a live event');
      return null;
    }
  }

  /** The frame of an event, built at most once (a failure is logged, sends nothing, and is not kept). */
  private frameOf(published: PublishedEvent): Promise<string | null> {
    const known = this.frames.get(published.id);
    if (known !== undefined) return known;
    const frame = presentFrame(this.ctx, this.ctx.db.kysely, published).catch((error: unknown) => {
      this.ctx.log.error({ err: error, eventId: published.id }, 'could not present a live event');
      this.frames.delete(published.id);
      return null;
    });
    this.frames.set(published.id, frame);
    // Map order is insertion order: the first keys are the oldest frames.
    for (const id of this.frames.keys()) {
      if (this.frames.size <= REPLAY_LIMITS.maxEvents) break;
      this.frames.delete(id);
    }
    return frame;
  }

  /** Sends what the client missed since `lastEventId`, as the rules allow now, or `resync`. */
  private async replay(stream: Stream, lastEventId: number | 'invalid'): Promise<void> {
    const resync = () => {
      const id = this.ctx.events.lastId;
      stream.force(id, sseFrame(id, { event: 'resync', data: {} }));
      stream.endReplay(id);
    };
    try {
      const missed = typeof lastEventId === 'number' ? await this.ctx.events.since(lastEventId) : null;
      if (missed === null || typeof lastEventId !== 'number') {
        resync();
        return;
      }
      const receivable = await receivableBy(
        this.ctx.db.kysely,
        stream.userId,
        missed.map((p) => p.event),
      );
      for (const published of missed) {
        if (!receivable(published.event)) continue;
        const frame = await this.frameOf(published);
        if (stream.closed) return;
        if (frame !== null) stream.emit(published.id, frame);
        await stream.drained();
      }
      stream.endReplay(missed.at(-1)?.id ?? lastEventId);
    } catch (error) {
      this.ctx.log.error({ err: error }, 'could not replay live events');
      resync();
    }
  }
}

const streamsByContext = new WeakMap<AppContext, EventStreams>();

/** The streams of the app built on `ctx` (tests shorten `options.pingIntervalMs` through it). */
export function eventStreamsOf(ctx: AppContext): EventStreams | undefined {
  return streamsByContext.get(ctx);
}

/** GET /api/events (docs/api §11.4). */
export function eventRoutes(app: FastifyInstance, ctx: AppContext, options: Partial<EventStreamOptions> = {}): void {
  const streams = new EventStreams(ctx, options);
  streamsByContext.set(ctx, streams);
  // preClose runs before the server waits for open requests: streams would otherwise hold it open.
  app.addHook('preClose', async () => streams.shutdown());

  // A HEAD would open a stream with no body to read; GET only (HEAD answers 405).
  route(
    app,
    'GET /api/events',
    async (request, reply, user) => {
      // Errors before the stream starts answer in the JSON envelope; a malformed request uses no open.
      const device = request.query.device;
      if (device !== undefined && !isDeviceId(device)) {
        throw invalidField('device', 'The device must be 1 to 64 letters, digits, _ or -');
      }
      await new Throttle(ctx.limiter, 'streamsPerUser', user.id).take();
      const lastEventId = readLastEventId(request);
      reply.hijack();
      streams.open(user.id, device ?? null, request, reply, lastEventId);
    },
    { head: false },
  );
}
