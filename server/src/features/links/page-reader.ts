import { ThreadWorker, siblingModule, type ThreadWorkerLimits } from '../../lib/thread-worker.js';
import { RemoteFetchError } from './fetcher.js';
import type { PageJob, PageMeta } from './parse.js';

/**
 * Link previews parse remote HTML in a worker thread (lib/thread-worker.ts), never on the thread
 * that answers requests. On the main thread, 2 MiB of nested `<div>` (htmlparser2 is quadratic in
 * the nesting depth) froze every request for tens of seconds, and the 10 s fetch deadline could not
 * fire while it ran. parse.ts now reads at most 512 KiB and caps the nesting, so a parse is linear;
 * the worker is there for what may still be slow on hostile input: a page that takes longer than
 * `deadlineMs` is abandoned and the worker terminated, and the next page gets a fresh one.
 */

/** Limits of the shared reader. Exported as a mutable object so tests can change them. */
export const pageReaderLimits: ThreadWorkerLimits = {
  /**
   * How long the worker may spend on one page. Ordinary pages take a few milliseconds; the slowest
   * hostile shapes found (512 KiB of siblings or stray end tags at the nesting cap) about 0.15 s on
   * a busy 2-core machine. 2 s leaves room for a loaded host, and no page holds the worker longer.
   */
  deadlineMs: 2_000,
  /** After this long without a page to read, the worker exits; the next page starts another. */
  idleStopMs: 30_000,
  /** Meanwhile its heap shrinks to its live objects after a second without a page (thread-worker.ts). */
  idleReclaimMs: 1000,
};

/** The module the worker loads: parse.js beside this file when built, parse.ts under Vitest. */
const PARSE_MODULE = siblingModule(import.meta.url, 'parse');

/** Reads pages (`readPageJob` of parse.ts) in a worker thread started on demand, one page at a time. */
export class PageReader {
  private readonly worker: ThreadWorker<PageJob, PageMeta>;

  /** `module`: the URL of what the worker imports for `readPageJob` (tests pass stand-ins). */
  constructor(limits: ThreadWorkerLimits = pageReaderLimits, module: string = PARSE_MODULE) {
    this.worker = new ThreadWorker({
      module,
      exported: 'readPageJob',
      setup: undefined,
      limits,
      errors: {
        timeout: () => new RemoteFetchError('timeout'),
        // It died reading this page (out of memory, say): the page's fault, not the server's.
        died: () => new RemoteFetchError('parse failed'),
        stopped: () => new RemoteFetchError('stopped'),
        // readPageMeta threw, or the worker could not start: faults of the server, not the page's.
        threw: (message) => new Error(`reading the page failed: ${message}`),
        notStarted: (reason) => new Error(`the link preview worker did not start: ${reason}`),
      },
      // A page of at most 512 KiB needs little: a runaway one hits these limits and the worker dies
      // (that page fails) instead of growing the server's memory.
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 },
    });
  }

  /** The thread id of the worker, or null while none runs. */
  get threadId(): number | null {
    return this.worker.threadId;
  }

  /**
   * The metadata of an HTML page from its bytes (copied to the worker). Rejects with
   * `RemoteFetchError('timeout')` when the worker spends longer than the deadline on it, with the
   * signal's reason when that aborts first, and with `RemoteFetchError('parse failed')` when the
   * worker dies reading it (out of memory, say). Other errors (the parser threw, the worker could not
   * start) are faults of the server, not of the page.
   */
  read(body: Uint8Array, contentType: string | undefined, base: URL, signal?: AbortSignal): Promise<PageMeta> {
    // Only the bytes of the view travel: a view into a larger buffer would copy all of that.
    const bytes = body.byteLength === body.buffer.byteLength ? body : new Uint8Array(body);
    return this.worker.run({ body: bytes, contentType, url: base.href }, signal === undefined ? {} : { signal });
  }

  /** Terminates the worker and refuses the pages not read yet (tests, shutdown). */
  stop(): Promise<void> {
    return this.worker.stop();
  }
}

/** The reader every link preview of this process shares. */
export const pageReader = new PageReader();
