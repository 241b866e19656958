// The live event stream (contract §11.4). EventSource cannot send X-AUTH-TOKEN, so the stream is
// read with fetch() and parsed here; reconnection resumes with Last-Event-ID.
import { appPath } from './config';

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

export interface StreamOptions {
  getKey(): string | null;
  onEvent(event: StreamEvent): void;
  /** Called after a reconnection that could not resume (the client should reload what it shows). */
  onResync?(): void;
}

/** Keeps one stream open while a key is present; returns a function that closes it for good. */
export function openEventStream(options: StreamOptions): () => void {
  let closed = false;
  let controller: AbortController | null = null;
  let lastId: string | null = null;
  let delay = 5000;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let connectedBefore = false;

  const schedule = () => {
    if (!closed) timer = setTimeout(() => void connect(), delay);
  };

  async function connect(): Promise<void> {
    const key = options.getKey();
    if (closed || key === null) return;
    controller = new AbortController();
    const headers: Record<string, string> = { 'X-AUTH-TOKEN': key, Accept: 'text/event-stream' };
    if (lastId !== null) headers['Last-Event-ID'] = lastId;
    try {
      const response = await fetch(appPath('/api/events'), { headers, signal: controller.signal, cache: 'no-store' });
      if (!response.ok || response.body === null) {
        if (response.status === 401) return; // the key is gone; the API client sends the user to login
        schedule();
        return;
      }
      // Without Last-Event-ID the server cannot replay: whatever happened while away must be reloaded.
      if (connectedBefore && lastId === null) options.onResync?.();
      connectedBefore = true;
      const parser = new SseParser();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const event of parser.push(value)) {
          if (event.id !== null) lastId = event.id;
          options.onEvent(event);
        }
        if (parser.retry !== null) delay = parser.retry;
      }
    } catch {
      // network error or abort: retried below unless closed
    }
    schedule();
  }

  void connect();
  return () => {
    closed = true;
    if (timer !== null) clearTimeout(timer);
    controller?.abort();
  };
}
