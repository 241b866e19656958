import type { AddressInfo } from 'node:net';
import { afterEach, expect } from 'vitest';
import type { TestApp } from './harness.js';

// Reading Server-Sent Events (docs/api §11.4) from a real listening server in tests.

/** One block of the stream: its fields, and its comment lines (`: ping`). */
export interface Frame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comments: string[];
}

/** An event frame with its parsed data. */
export interface Received {
  id: number;
  event: string;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
}

/**
 * Reads a live stream from a real socket, frame by frame. Every wait is bounded: a frame that does
 * not come within the timeout fails the test instead of hanging it.
 */
export class EventReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private readonly frames: Frame[] = [];
  private done = false;
  private pendingRead: ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']> | null = null;
  /** Every event frame read so far, in order. */
  readonly seen: Received[] = [];

  constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {
    if (response.body === null) throw new Error('no body');
    this.reader = response.body.getReader();
  }

  /** The next frame, or null once the server ended the stream. */
  async next(timeoutMs = 15_000): Promise<Frame | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length === 0) {
      if (this.done) return null;
      this.pendingRead ??= this.reader.read();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
      });
      const result = await Promise.race([this.pendingRead, timeout]);
      clearTimeout(timer);
      if (result === 'timeout') throw new Error(`no frame within ${timeoutMs} ms`);
      this.pendingRead = null;
      if (result.done) {
        this.done = true;
        continue;
      }
      this.buffer += this.decoder.decode(result.value, { stream: true });
      let end: number;
      while ((end = this.buffer.indexOf('\n\n')) >= 0) {
        this.frames.push(parseFrame(this.buffer.slice(0, end)));
        this.buffer = this.buffer.slice(end + 2);
      }
    }
    return this.frames.shift() ?? null;
  }

  /** The next event frame (pings and `retry` are passed over); fails if the stream ends first. */
  async nextEvent(timeoutMs = 15_000): Promise<Received> {
    for (;;) {
      const frame = await this.next(timeoutMs);
      if (frame === null) throw new Error('the stream ended');
      if (frame.event === undefined) continue;
      expect(frame.id).toMatch(/^\d+$/);
      const received = { id: Number(frame.id), event: frame.event, data: JSON.parse(frame.data ?? 'null') };
      this.seen.push(received);
      return received;
    }
  }

  /** Every event up to and including the first that matches. */
  async eventsUntil(match: (e: Received) => boolean, timeoutMs = 15_000): Promise<Received[]> {
    const events: Received[] = [];
    for (;;) {
      const event = await this.nextEvent(timeoutMs);
      events.push(event);
      if (match(event)) return events;
    }
  }

  /** Resolves once the server has ended the stream (events still unread are passed over). */
  async ended(timeoutMs = 15_000): Promise<void> {
    while ((await this.next(timeoutMs)) !== null) {
      // passing over what was still on its way
    }
  }

  close(): void {
    this.controller.abort();
  }
}

export function parseFrame(block: string): Frame {
  const frame: Frame = { comments: [] };
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      frame.comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'id' || name === 'event' || name === 'data' || name === 'retry') frame[name] = value;
  }
  return frame;
}

/** Ids only grow within one stream (docs/api §11.4). */
export function expectGrowingIds(events: Received[]): void {
  for (let i = 1; i < events.length; i += 1) expect(events[i]!.id).toBeGreaterThan(events[i - 1]!.id);
}

/** A real server on loopback, and the streams opened on it (closed after each test). */
export function serve(t: () => TestApp) {
  const readers: EventReader[] = [];
  let base = '';

  const listen = async () => {
    await t().app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}/api`;
  };

  const request = (key: string | undefined, headers: Record<string, string> = {}, query = '') => {
    const controller = new AbortController();
    const promise = fetch(`${base}/events${query}`, {
      headers: { ...(key !== undefined ? { 'x-auth-token': key } : {}), ...headers },
      signal: controller.signal,
    });
    return { controller, promise };
  };

  /** Opens a stream and reads its first frame, `retry: 5000`: from then on the server knows it. */
  const open = async (key: string, headers: Record<string, string> = {}, query = ''): Promise<EventReader> => {
    const { controller, promise } = request(key, headers, query);
    const response = await promise;
    if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
    const reader = new EventReader(response, controller);
    readers.push(reader);
    const first = await reader.next();
    expect(first).toEqual({ retry: '5000', comments: [] });
    return reader;
  };

  /** An answer that is not a stream, read whole. */
  const refused = async (key: string | undefined, headers: Record<string, string> = {}, query = '') => {
    const { promise } = request(key, headers, query);
    const response = await promise;
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      text: await response.text(),
    };
  };

  afterEach(() => {
    for (const reader of readers.splice(0)) reader.close();
  });

  return { listen, open, request, refused, base: () => base };
}
