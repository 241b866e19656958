import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { RemoteFetchError } from './fetcher.js';
import type { PageMeta } from './parse.js';

/**
 * Link previews parse remote HTML in a worker thread, never on the thread that answers requests.
 * On the main thread, 2 MiB of nested `<div>` (htmlparser2 is quadratic in the nesting depth)
 * froze every request for tens of seconds, and the 10 s fetch deadline could not fire while it
 * ran. parse.ts now reads at most 512 KiB and caps the nesting, so a parse is linear; the worker
 * is there for what may still be slow on hostile input: a page that takes longer than `deadlineMs`
 * is abandoned and the worker terminated, and the next page gets a fresh one.
 *
 * Like the checkpoint worker (db/checkpointer.ts), it runs only while there is work: a thread with
 * its own JavaScript engine is 10-15 MB of the server's memory. The first page starts it, and it
 * exits after `idleStopMs` without one.
 */

/** Limits of the shared reader. Exported as a mutable object so tests can change them. */
export const pageReaderLimits = {
  /**
   * How long the worker may spend on one page. Ordinary pages take a few milliseconds; the slowest
   * hostile shapes found (512 KiB of siblings or stray end tags at the nesting cap) about 0.15 s on
   * a busy 2-core machine. 2 s leaves room for a loaded host, and no page holds the worker longer.
   */
  deadlineMs: 2_000,
  /** After this long without a page to read, the worker exits; the next page starts another. */
  idleStopMs: 30_000,
};

/** The module the worker loads: parse.js beside this file when built, parse.ts under Vitest. */
const PARSE_MODULE = new URL(`./parse${path.extname(new URL(import.meta.url).pathname)}`, import.meta.url).href;

// The worker's whole program, a CommonJS script like the checkpoint worker's. It imports the module
// that reads pages by its absolute URL (so it works from dist and from the sources alike), says
// when it is ready, then answers one page at a time, in the order they come.
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.module).then((parse) => {
  parentPort.on('message', ({ id, body, contentType, url }) => {
    let answer;
    try {
      answer = { id, meta: parse.readPageMeta(body, contentType, new URL(url)) };
    } catch (error) {
      answer = { id, error: String((error && error.message) || error) };
    }
    parentPort.postMessage(answer);
  });
  parentPort.postMessage({ ready: true });
});
`;

type Answer = { ready: true } | { id: number; meta: PageMeta } | { id: number; error: string };

interface Job {
  id: number;
  body: Uint8Array;
  contentType: string | undefined;
  url: string;
  resolve: (meta: PageMeta) => void;
  reject: (error: Error) => void;
  /** Stops listening to the caller's signal. */
  release: () => void;
}

/** Reads pages (`readPageMeta` of parse.ts) in a worker thread started on demand, one page at a time. */
export class PageReader {
  private worker: Worker | null = null;
  private ready = false;
  /** Pages not yet handed to the worker, oldest first. */
  private readonly waiting: Job[] = [];
  /** The page the worker reads now, with its deadline. */
  private current: { job: Job; timer: NodeJS.Timeout } | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private lastId = 0;

  /** `module`: the URL of what the worker imports for `readPageMeta` (tests pass stand-ins). */
  constructor(
    private readonly limits: { deadlineMs: number; idleStopMs: number } = pageReaderLimits,
    private readonly module: string = PARSE_MODULE,
  ) {}

  /** The thread id of the worker, or null while none runs. */
  get threadId(): number | null {
    return this.worker?.threadId ?? null;
  }

  /**
   * The metadata of an HTML page from its bytes (copied to the worker). Rejects with
   * `RemoteFetchError('timeout')` when the worker spends longer than the deadline on it, with the
   * signal's reason when that aborts first, and with `RemoteFetchError('parse failed')` when the
   * worker dies reading it (out of memory, say). Other errors (the parser threw, the worker could not
   * start) are faults of the server, not of the page.
   */
  read(body: Uint8Array, contentType: string | undefined, base: URL, signal?: AbortSignal): Promise<PageMeta> {
    if (signal?.aborted === true) return Promise.reject(abortReason(signal));
    // Only the bytes of the view travel: a view into a larger buffer would copy all of that.
    const bytes = body.byteLength === body.buffer.byteLength ? body : new Uint8Array(body);
    return new Promise<PageMeta>((resolve, reject) => {
      this.lastId += 1;
      const onAbort = () => this.abandon(job, abortReason(signal as AbortSignal));
      const job: Job = {
        id: this.lastId,
        body: bytes,
        contentType,
        url: base.href,
        resolve,
        reject,
        release: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(job);
      this.next();
    });
  }

  /** Terminates the worker and refuses the pages not read yet (tests, shutdown). */
  async stop(): Promise<void> {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const worker = this.worker;
    this.worker = null;
    this.ready = false;
    const jobs = [...(this.current === null ? [] : [this.current.job]), ...this.waiting.splice(0)];
    if (this.current !== null) clearTimeout(this.current.timer);
    this.current = null;
    for (const job of jobs) finish(job, new RemoteFetchError('stopped'));
    await worker?.terminate();
  }

  /** Hands the next waiting page to the worker once it is free and ready, starting one if needed. */
  private next(): void {
    if (this.current !== null) return;
    if (this.waiting.length === 0) {
      this.idle();
      return;
    }
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const worker = this.worker ?? this.start();
    // Held while it has work, so a process with nothing else to do waits for the answer.
    worker.ref();
    if (!this.ready) return;
    const job = this.waiting.shift() as Job;
    // The deadline starts when the worker gets the page: time spent waiting behind another page or
    // for the worker to start is not this page's.
    const timer = setTimeout(() => this.abandon(job, new RemoteFetchError('timeout')), this.limits.deadlineMs);
    this.current = { job, timer };
    worker.postMessage({ id: job.id, body: job.body, contentType: job.contentType, url: job.url });
  }

  private start(): Worker {
    const worker = new Worker(PROGRAM, {
      eval: true,
      workerData: { module: this.module },
      // A page of at most 512 KiB needs little: a runaway one hits these limits and the worker dies
      // (that page fails) instead of growing the server's memory.
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 },
    });
    this.worker = worker;
    this.ready = false;
    let crash: Error | null = null;
    worker.on('message', (answer: Answer) => {
      if (worker !== this.worker) return;
      if ('ready' in answer) {
        this.ready = true;
        this.next();
        return;
      }
      const current = this.current;
      if (current === null || current.job.id !== answer.id) return;
      clearTimeout(current.timer);
      this.current = null;
      if ('meta' in answer) finish(current.job, null, answer.meta);
      // readPageMeta threw: a bug to be logged, not the remote side's failure.
      else finish(current.job, new Error(`reading the page failed: ${answer.error}`));
      this.next();
    });
    // Out of memory, or a broken program: the exit that follows fails the page concerned.
    worker.on('error', (error: Error) => {
      crash = error;
    });
    worker.once('exit', () => {
      if (worker !== this.worker) return;
      this.worker = null;
      const current = this.current;
      if (current !== null) {
        // It died reading this page (out of memory, say): the page's fault, not the server's.
        clearTimeout(current.timer);
        this.current = null;
        finish(current.job, new RemoteFetchError('parse failed'));
      } else if (!this.ready) {
        // It never got ready: a fault of the server, reported as such. The page that started it
        // fails, so a worker that cannot start fails each page once instead of restarting for ever.
        const first = this.waiting.shift();
        const reason = crash?.message ?? 'exited';
        if (first !== undefined) finish(first, new Error(`the link preview worker did not start: ${reason}`));
      }
      this.ready = false;
      this.next();
    });
    return worker;
  }

  /**
   * Gives up a page (deadline, abort). One the worker is reading costs the worker: nothing else
   * stops a parse, so it is terminated and the next page gets a new one.
   */
  private abandon(job: Job, error: Error): void {
    const at = this.waiting.indexOf(job);
    if (at !== -1) {
      this.waiting.splice(at, 1);
    } else if (this.current?.job === job) {
      clearTimeout(this.current.timer);
      this.current = null;
      const worker = this.worker;
      this.worker = null;
      this.ready = false;
      void worker?.terminate();
    } else {
      return;
    }
    finish(job, error);
    this.next();
  }

  /** Nothing to read: the worker no longer holds the process, and exits after `idleStopMs`. */
  private idle(): void {
    const worker = this.worker;
    if (worker === null || this.idleTimer !== null) return;
    worker.unref();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.worker !== worker || this.current !== null || this.waiting.length > 0) return;
      this.worker = null;
      this.ready = false;
      void worker.terminate();
    }, this.limits.idleStopMs).unref();
  }
}

function finish(job: Job, error: Error | null, meta?: PageMeta): void {
  job.release();
  if (error !== null) job.reject(error);
  else job.resolve(meta as PageMeta);
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new RemoteFetchError('timeout');
}

/** The reader every link preview of this process shares. */
export const pageReader = new PageReader();
