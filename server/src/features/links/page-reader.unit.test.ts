import { threadId as mainThreadId } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RemoteFetchError } from './fetcher.js';
import { PageReader } from './page-reader.js';
import { HTML_READ_BUDGET, readPageMeta } from './parse.js';

const base = new URL('https://example.com/page');
const bytes = (html: string): Uint8Array => new TextEncoder().encode(html);
const turn = () => new Promise((resolve) => setImmediate(resolve));

// A stand-in for parse.ts that the worker imports instead, to make a parse that never ends, waits
// for the test, or kills its thread; any other page goes to the real readPageJob.
const STAND_IN = `data:text/javascript,${encodeURIComponent(`
import { readPageJob as real } from ${JSON.stringify(new URL('./parse.ts', import.meta.url).href)};
export function readPageJob({ body, contentType, url }) {
  // Shared memory: say it started, then wait until the test stores 1 in it.
  if (body.buffer instanceof SharedArrayBuffer) {
    const flags = new Int32Array(body.buffer);
    Atomics.store(flags, 1, 1);
    Atomics.wait(flags, 0, 0);
    return real({ body: new TextEncoder().encode('<title>Released</title>'), contentType, url });
  }
  const start = new TextDecoder().decode(body.subarray(0, 4));
  if (start === 'spin') for (;;);
  if (start === 'exit') process.exit(1);
  return real({ body, contentType, url });
}`)}`;

/** A page the stand-in holds until `release()`: its bytes share memory with the test. */
function heldPage(): { body: Uint8Array; started: () => boolean; release: () => void } {
  const flags = new Int32Array(new SharedArrayBuffer(8));
  return {
    body: new Uint8Array(flags.buffer),
    started: () => Atomics.load(flags, 1) === 1,
    release: () => {
      Atomics.store(flags, 0, 1);
      Atomics.notify(flags, 0);
    },
  };
}

const readers: PageReader[] = [];
function reader(limits: Partial<{ deadlineMs: number; idleStopMs: number }> = {}, module?: string): PageReader {
  const made = new PageReader({ deadlineMs: 60_000, idleStopMs: 60_000, ...limits }, module);
  readers.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(readers.splice(0).map((r) => r.stop()));
});

describe('PageReader', () => {
  it('reads a page in a worker thread started on the first page, as parse.ts does', async () => {
    const pages = reader();
    expect(pages.threadId).toBeNull();
    const html = bytes(
      '<head><title>Tides</title><meta property="og:image" content="/t.png"></head><body><p>Text</p></body>',
    );
    const meta = await pages.read(html, 'text/html', base);
    expect(meta).toEqual(readPageMeta(html, 'text/html', base));
    expect(meta.title).toBe('Tides');
    expect(pages.threadId).not.toBeNull();
    expect(pages.threadId).not.toBe(mainThreadId);
  });

  it('keeps the event loop turning while a page is parsed', async () => {
    const pages = reader();
    await pages.read(bytes('<title>warm</title>'), undefined, base);
    // The slowest shape under the nesting cap: stray end tags, each searched for among 500 open
    // elements. The answer comes back through the event loop, so turns run before it on any machine.
    const slow = bytes(`<head><title>Slow</title>${'<i>'.repeat(500)}${'</p>'.repeat(HTML_READ_BUDGET / 4)}`);
    let answered = false;
    const pending = pages.read(slow, undefined, base).finally(() => {
      answered = true;
    });
    let turns = 0;
    while (!answered) {
      turns += 1;
      await turn();
    }
    expect((await pending).title).toBe('Slow');
    expect(turns).toBeGreaterThan(0);

    // And deterministically: a parse held by the test lets this thread run for as long as it lasts.
    const held = heldPage();
    const stand = reader({}, STAND_IN);
    let released = false;
    const waiting = stand.read(held.body, undefined, base).finally(() => {
      released = true;
    });
    for (let i = 0; i < 100; i += 1) await turn();
    expect(released).toBe(false);
    held.release();
    expect((await waiting).title).toBe('Released');
  });

  it('gives up a parse past its deadline: timeout, the worker terminated, the next page read by a new one', async () => {
    const pages = reader({ deadlineMs: 1_000 }, STAND_IN);
    const spinning = pages.read(bytes('spin'), undefined, base);
    const first = pages.threadId;
    expect(first).not.toBeNull();
    await expect(spinning).rejects.toEqual(new RemoteFetchError('timeout'));
    expect(pages.threadId).toBeNull();
    const next = await pages.read(bytes('<title>Next</title>'), undefined, base);
    expect(next.title).toBe('Next');
    expect(pages.threadId).not.toBeNull();
    expect(pages.threadId).not.toBe(first);
  });

  it('starts the deadline of a page when the worker gets it, not while it waits behind another', async () => {
    const pages = reader({ deadlineMs: 1_000 }, STAND_IN);
    const spinning = pages.read(bytes('spin'), undefined, base);
    // Queued behind the spinning page: it waits out that page's whole deadline and a new worker.
    const queued = [1, 2, 3].map((n) => pages.read(bytes(`<title>Page ${n}</title>`), undefined, base));
    await expect(spinning).rejects.toEqual(new RemoteFetchError('timeout'));
    expect((await Promise.all(queued)).map((meta) => meta.title)).toEqual(['Page 1', 'Page 2', 'Page 3']);
  });

  it('fails the page a worker dies on (parse failed) and replaces the worker', async () => {
    const pages = reader({}, STAND_IN);
    await expect(pages.read(bytes('exit'), undefined, base)).rejects.toEqual(new RemoteFetchError('parse failed'));
    expect((await pages.read(bytes('<title>After</title>'), undefined, base)).title).toBe('After');
  });

  it("follows the caller's signal: a waiting page is dropped, one being read costs the worker", async () => {
    const pages = reader({}, STAND_IN);
    const held = heldPage();
    const reading = new AbortController();
    const first = pages.read(held.body, undefined, base, reading.signal);
    const waiting = new AbortController();
    const second = pages.read(bytes('<title>Dropped</title>'), undefined, base, waiting.signal);
    const third = pages.read(bytes('<title>Third</title>'), undefined, base);
    waiting.abort(new RemoteFetchError('timeout'));
    await expect(second).rejects.toEqual(new RemoteFetchError('timeout'));
    // The held parse never ends by itself: only the abort (and a new worker) lets the third through.
    await vi.waitFor(() => expect(held.started()).toBe(true), { timeout: 10_000 });
    const holding = pages.threadId;
    reading.abort(new RemoteFetchError('timeout'));
    await expect(first).rejects.toEqual(new RemoteFetchError('timeout'));
    expect((await third).title).toBe('Third');
    expect(pages.threadId).not.toBe(holding);
    held.release();
  });

  it('stops its worker after the idle delay; the next page starts another', async () => {
    const pages = reader({ idleStopMs: 50 });
    await pages.read(bytes('<title>One</title>'), undefined, base);
    expect(pages.threadId).not.toBeNull();
    await vi.waitFor(() => expect(pages.threadId).toBeNull(), { timeout: 10_000 });
    expect((await pages.read(bytes('<title>Two</title>'), undefined, base)).title).toBe('Two');
  });

  it('fails each page once when its worker cannot start, without restarting for ever', async () => {
    const pages = reader({}, new URL('./no-such-module.js', import.meta.url).href);
    const [one, two] = await Promise.allSettled([
      pages.read(bytes('<title>1</title>'), undefined, base),
      pages.read(bytes('<title>2</title>'), undefined, base),
    ]);
    for (const result of [one, two]) {
      expect(result.status).toBe('rejected');
      const reason = (result as PromiseRejectedResult).reason as Error;
      // A fault of the server, not of the page: not a RemoteFetchError, so it is logged.
      expect(reason).not.toBeInstanceOf(RemoteFetchError);
      expect(reason.message).toMatch(/did not start/);
    }
    expect(pages.threadId).toBeNull();
  });
});
