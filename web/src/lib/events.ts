// The live event stream (docs/api §11.4). EventSource cannot send X-AUTH-TOKEN, so the stream is
// read with fetch() and parsed here; reconnection resumes with Last-Event-ID, waiting longer after
// each failure. One browser shares one stream among its tabs: features/live/sharedStream.ts.
import { appPath } from './config';
import { EVENT_ID_HEADER } from './eventClock';

export interface StreamEvent {
  id: string | null;
  event: string;
  data: string;
}

/** Incremental parser of the text/event-stream format (lines, comments, multi-line data, retry). */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | null = null;
  /** Reconnection delay the server asked for, in ms. */
  retry: number | null = null;

  /** Feeds a chunk of text; returns the events completed by it. */
  push(chunk: string): StreamEvent[] {
    this.buffer += chunk;
    const out: StreamEvent[] = [];
    let newline: number;
    while ((newline = this.buffer.search(/\r\n|\r|\n/)) !== -1) {
      const line = this.buffer.slice(0, newline);
      const width = this.buffer.startsWith('\r\n', newline) ? 2 : 1;
      // A lone \r at the very end may be the first half of \r\n: wait for more.
      if (this.buffer[newline] === '\r' && width === 1 && newline === this.buffer.length - 1) break;
      this.buffer = this.buffer.slice(newline + width);
      this.line(line, out);
    }
    return out;
  }

  private line(line: string, out: StreamEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) out.push({ id: this.id, event: this.event || 'message', data: this.data.join('\n') });
      this.data = [];
      this.event = '';
      return;
    }
    if (line.startsWith(':')) return; // comment (": ping")
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id') this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
  }
}

/** The reconnection delay until the server announces one (`retry:`; the contract says 5000). */
export const DEFAULT_RETRY_MS = 5000;
/** The longest wait between attempts, unless the server asks for longer (`retry:`, Retry-After). */
export const MAX_BACKOFF_MS = 60_000;
/** A stream that stayed open this long was healthy: the next loss starts the back-off over. */
export const HEALTHY_AFTER_MS = 60_000;
/**
 * Live updates count as offline once the stream has been down this long. Longer than the first
 * reconnection (5 to 7.5 s), so the ordinary hourly reconnection never shows it.
 */
export const OFFLINE_AFTER_MS = 10_000;
/** Never reconnect faster than this, whatever `retry:` says: a server sending 0 must not cause a loop. */
const MIN_RETRY_MS = 1000;
/** Each wait is stretched by up to half again, at random, so clients cut off together come back apart. */
const JITTER = 0.5;

/**
 * How long to wait before reconnection attempt `attempt` (0 for the first after a loss): the
 * server's `retry:` doubled each time up to a minute, never less than `retry:` itself, plus jitter.
 * With `retry: 5000`: 5-7.5 s, 10-15 s, 20-30 s, 40-60 s, then 60-90 s.
 */
export function backoffDelay(attempt: number, retryMs: number, random: () => number = Math.random): number {
  const base = Math.max(MIN_RETRY_MS, retryMs);
  const exponential = Math.min(Math.max(MAX_BACKOFF_MS, base), base * 2 ** Math.min(attempt, 20));
  return Math.round(exponential * (1 + JITTER * random()));
}

/** The reason the server gives in a `closed` event when a sixth stream of the user closed this one. */
const DISPLACED = 'too_many_streams';

export interface StreamOptions {
  getKey(): string | null;
  onEvent(event: StreamEvent): void;
  /** Called after a reconnection that may have missed events (the client should reload what it shows). */
  onResync?(): void;
  /** Called when a stream opens, before `onStatus(true)`, with its `Kith-Event-Id` (docs/api §11.4). */
  onOpen?(eventId: string | null): void;
  /** Called when the stream opens (true) and when it is lost (false). */
  onStatus?(connected: boolean): void;
  /** The server refused the key (401 `invalid_api_key`): the user must sign in again. */
  onUnauthorized?(): void;
  /** Where to resume: the id of the last event seen by another tab that held the stream before. */
  lastEventId?: string | null;
  /** Another tab held the stream before: events may have been missed if there is no id to resume from. */
  resuming?: boolean;
  /**
   * This browser's presence id (features/push/presence.ts): when the browser's last stream closes,
   * the server forgets that Kith was in front, even if the page's last report never arrived.
   */
  device?: string;
  /** The jitter's random source (tests). */
  random?: () => number;
}

/** The code of a JSON error answer, if it has one. */
async function errorCode(response: Response): Promise<string | null> {
  try {
    const body = (await response.json()) as { code?: unknown };
    return typeof body.code === 'string' ? body.code : null;
  } catch {
    return null;
  }
}

/** The `reason` of a `closed` event. */
function reasonOf(event: StreamEvent): unknown {
  try {
    return (JSON.parse(event.data) as { reason?: unknown } | null)?.reason;
  } catch {
    return undefined;
  }
}

/** Seconds of a `Retry-After` header, in ms (null when absent or a date, which the server never sends). */
function retryAfterMs(response: Response): number | null {
  const value = Number(response.headers.get('Retry-After') ?? '');
  return Number.isFinite(value) && value > 0 ? value * 1000 : null;
}

/**
 * Keeps one stream open while a key is present and returns a function that closes it for good.
 * A lost stream is reopened with `Last-Event-ID` after `backoffDelay`; a 429 waits for its
 * Retry-After, a stream closed because the user opened too many waits for the `retry:` the server
 * sent with it, and a 401 stops. Coming back online reconnects at once (unless the server asked
 * for the wait).
 */
export function openEventStream(options: StreamOptions): () => void {
  const random = options.random ?? Math.random;
  let closed = false;
  let controller: AbortController | null = null;
  let lastId: string | null = options.lastEventId ?? null;
  let retryMs = DEFAULT_RETRY_MS;
  /** Failed attempts since the last healthy stream. */
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** The pending wait was asked for by the server (429, too many streams): going online does not cut it. */
  let serverWait = false;
  /** When the stream was lost (null while open, and before the first one). */
  let lostAt: number | null = options.resuming === true ? Date.now() : null;
  let connectedBefore = options.resuming === true;
  let wentOffline = false;

  const schedule = (delay: number, askedByServer: boolean) => {
    if (closed) return;
    serverWait = askedByServer;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, delay);
  };

  const retry = () => {
    schedule(backoffDelay(attempt, retryMs, random), false);
    attempt += 1;
  };

  const onOnline = () => {
    if (timer === null || serverWait) return;
    clearTimeout(timer);
    timer = null;
    void connect();
  };
  const onOffline = () => {
    // The connection cannot work now, and a dead socket may take minutes to notice: drop it and
    // wait for the network to come back (or for the next attempt, as navigator.onLine may be wrong).
    wentOffline = true;
    controller?.abort();
  };

  async function connect(): Promise<void> {
    const key = options.getKey();
    if (closed || key === null) return;
    controller = new AbortController();
    const headers: Record<string, string> = { 'X-AUTH-TOKEN': key, Accept: 'text/event-stream' };
    if (lastId !== null) headers['Last-Event-ID'] = lastId;
    let openedAt: number | null = null;
    let displaced = false;
    try {
      const query = options.device === undefined ? '' : `?device=${encodeURIComponent(options.device)}`;
      const response = await fetch(appPath(`/api/events${query}`), {
        headers,
        signal: controller.signal,
        cache: 'no-store',
      });
      if (response.status === 401) {
        // The key stopped working (reset elsewhere, account deleted or disabled): sign out, as every API call does.
        const code = await errorCode(response);
        if (code === 'invalid_api_key' || code === 'account_disabled') options.onUnauthorized?.();
        return;
      }
      if (response.status === 429) {
        // A loop somewhere used up the user's opens: wait as long as the server says.
        const delay = Math.max(retryAfterMs(response) ?? 0, backoffDelay(attempt, retryMs, random));
        attempt += 1;
        schedule(delay, true);
        return;
      }
      if (!response.ok || response.body === null) {
        retry();
        return;
      }
      openedAt = Date.now();
      // Events may have been missed: without Last-Event-ID the server cannot replay them, and after
      // a long or offline gap the user has seen the offline sign and expects everything to be current.
      const missed = lastId === null || wentOffline || (lostAt !== null && openedAt - lostAt >= OFFLINE_AFTER_MS);
      if (connectedBefore && missed) options.onResync?.();
      connectedBefore = true;
      wentOffline = false;
      lostAt = null;
      options.onOpen?.(response.headers.get(EVENT_ID_HEADER));
      options.onStatus?.(true);
      const parser = new SseParser();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const event of parser.push(value)) {
          // The server's last word before closing this stream for a newer one: not an update.
          if (event.event === 'closed') {
            displaced = reasonOf(event) === DISPLACED;
            continue;
          }
          if (event.id !== null) lastId = event.id;
          options.onEvent(event);
        }
        if (parser.retry !== null) retryMs = parser.retry;
      }
    } catch {
      // Network error or abort: retried below unless closed.
    }
    if (closed) return;
    if (openedAt !== null) {
      lostAt = Date.now();
      options.onStatus?.(false);
      if (lostAt - openedAt >= HEALTHY_AFTER_MS) attempt = 0;
    }
    if (displaced) {
      // Another of the user's streams took this one's place: come back only after the server's
      // `retry:` (a minute), or the two would close each other in turn.
      schedule(backoffDelay(0, retryMs, random), true);
      return;
    }
    retry();
  }

  window.addEventListener('online', onOnline);
  window.addEventListener('offline', onOffline);
  void connect();
  return () => {
    closed = true;
    if (timer !== null) clearTimeout(timer);
    window.removeEventListener('online', onOnline);
    window.removeEventListener('offline', onOffline);
    controller?.abort();
  };
}
