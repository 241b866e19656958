// Test doubles for the live stream (used by the tests only): a fake /api/events behind a stubbed
// fetch, and a small Web Locks implementation, which jsdom lacks.
import { vi } from 'vitest';

/** One request the client made to /api/events, and the stream answering it. */
export interface StreamCall {
  url: string;
  headers: Record<string, string>;
  /** Writes text on this stream (when it was answered with one). */
  send(text: string): void;
  /** Ends this stream as the server would. */
  end(): void;
  /** The client aborted the request. */
  aborted: boolean;
}

/** A scripted answer for the next request; by default a request gets an open stream. */
export type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | Error;

/** A fake server for `fetch('/api/events')`: records the requests and streams what a test writes. */
export class FakeEventServer {
  readonly calls: StreamCall[] = [];
  private readonly answers: Answer[] = [];
  /** The `Kith-Event-Id` the next streams answer with (none when null). */
  eventId: string | null = null;
  readonly fetch = vi.fn((url: string, init: RequestInit) => this.answer(url, init));

  /** Answers the next request with `answer` instead of a stream. */
  queue(answer: Answer): void {
    this.answers.push(answer);
  }

  /** The latest request. */
  get last(): StreamCall {
    const call = this.calls.at(-1);
    if (call === undefined) throw new Error('no request yet');
    return call;
  }

  private answer(url: string, init: RequestInit): Promise<Response> {
    const encoder = new TextEncoder();
    let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
    let open = true;
    const call: StreamCall = {
      url,
      headers: { ...(init.headers as Record<string, string>) },
      aborted: false,
      send: (text) => {
        if (open) controller?.enqueue(encoder.encode(text));
      },
      end: () => {
        if (open) controller?.close();
        open = false;
      },
    };
    this.calls.push(call);
    init.signal?.addEventListener('abort', () => {
      call.aborted = true;
      if (open) controller?.error(new DOMException('The request was aborted', 'AbortError'));
      open = false;
    });
    const scripted = this.answers.shift();
    if (scripted instanceof Error) {
      open = false;
      return Promise.reject(scripted);
    }
    if (scripted !== undefined) {
      open = false;
      const body = scripted.body === undefined ? null : JSON.stringify(scripted.body);
      return Promise.resolve(
        new Response(body, {
          status: scripted.status,
          headers: { 'Content-Type': 'application/json', ...scripted.headers },
        }),
      );
    }
    const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
    const headers: Record<string, string> = { 'Content-Type': 'text/event-stream' };
    if (this.eventId !== null) headers['Kith-Event-Id'] = this.eventId;
    return Promise.resolve(new Response(stream, { status: 200, headers }));
  }
}

type LockCallback = (lock: { name: string; mode: 'exclusive' }) => Promise<unknown>;

interface Waiter {
  callback: LockCallback;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/** Exclusive Web Locks as a browser grants them: in request order, one holder per name. */
export class FakeLocks {
  private readonly held = new Set<string>();
  private readonly waiting = new Map<string, Waiter[]>();

  request(name: string, options: { signal?: AbortSignal }, callback: LockCallback): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { callback, resolve, reject };
      const queue = this.waiting.get(name) ?? [];
      this.waiting.set(name, queue);
      queue.push(waiter);
      options.signal?.addEventListener('abort', () => {
        const index = queue.indexOf(waiter);
        if (index < 0) return; // already granted: aborting changes nothing then
        queue.splice(index, 1);
        reject(new DOMException('The request was aborted', 'AbortError'));
      });
      this.grant(name);
    });
  }

  /** Whether some tab holds the lock `name`. */
  isHeld(name: string): boolean {
    return this.held.has(name);
  }

  private grant(name: string): void {
    if (this.held.has(name)) return;
    const next = this.waiting.get(name)?.shift();
    if (next === undefined) return;
    this.held.add(name);
    void Promise.resolve()
      .then(() => next.callback({ name, mode: 'exclusive' }))
      .then(next.resolve, next.reject)
      .finally(() => {
        this.held.delete(name);
        this.grant(name);
      });
  }
}

/** Installs `locks` as `navigator.locks`; returns a function that removes it again. */
export function installLocks(locks: FakeLocks): () => void {
  Object.defineProperty(navigator, 'locks', { value: locks, configurable: true });
  return () => {
    delete (navigator as unknown as { locks?: unknown }).locks;
  };
}

/** Sets `navigator.onLine` and fires the window event a browser fires with it. */
export function setOnline(online: boolean): void {
  Object.defineProperty(navigator, 'onLine', { value: online, configurable: true });
  window.dispatchEvent(new Event(online ? 'online' : 'offline'));
}

/** Puts `navigator.onLine` back to the environment's own value. */
export function restoreOnline(): void {
  delete (navigator as unknown as { onLine?: boolean }).onLine;
}
