import { Worker, type ResourceLimits, type Transferable } from 'node:worker_threads';
import { trimSoon } from './malloc-trim.js';

/**
 * CPU-heavy work runs in a worker thread, never on the thread that answers requests: link previews
 * parse remote HTML (features/links/page-reader.ts), searches rank and cut snippets
 * (features/search/threads.ts). One place says how such a worker lives:
 *
 * - it imports one module by URL and calls one of its functions for each job, one job at a time in
 *   the order they come, with the `setup` it was started with (a file to open, say); an answer
 *   that is a `Uint8Array` of its own buffer is moved to the caller's thread, not copied;
 * - it runs only while there is work: a thread with its own JavaScript engine is 10-15 MB of the
 *   server's memory. The first job starts it, and it exits after `idleStopMs` without one;
 * - a job that takes longer than `deadlineMs` is abandoned and the worker terminated (nothing else
 *   stops a running function), and the next job gets a fresh worker; so does a job whose caller's
 *   signal aborts while the worker runs it;
 * - a worker that dies (out of memory, a crash) fails the job it ran, and the next job starts another.
 *
 * What each failure means to the caller differs (a remote page's fault, a 503), so the caller names
 * the errors.
 */

export interface ThreadWorkerLimits {
  /** How long one job may run once the worker has it. */
  deadlineMs: number;
  /** After this long without a job, the worker exits; the next job starts another. */
  idleStopMs: number;
  /**
   * After this long without a job (less than `idleStopMs`), the worker collects its garbage with
   * V8's "last resort" flavour, which shrinks its heap to its live objects: a worker kept for the
   * next job holds little meanwhile. Only where `gc` is exposed (`--expose-gc`, `npm run serve`).
   */
  idleReclaimMs?: number;
}

/** The errors a caller sees, by cause. */
export interface ThreadWorkerErrors {
  /** The job ran past its deadline (also the reason of an aborted signal without one). */
  timeout(): Error;
  /** The worker died running it. */
  died(): Error;
  /** `stop()` came first. */
  stopped(): Error;
  /** The function threw; `message` is its error's. */
  threw(message: string): Error;
  /** The worker could not start (its module failed to load, say). */
  notStarted(reason: string): Error;
}

export interface ThreadWorkerOptions<Setup> {
  /** The URL of the module the worker imports (`.ts` under Vitest, `.js` when built). */
  module: string;
  /** The name of its function, called as `fn(input, setup)`; it may return a promise. */
  exported: string;
  /**
   * The name of another function of the module, called as `fn(setup)` when the idle worker is asked
   * to shrink (`idleReclaimMs`), before its heap is collected: it gives back what the module keeps
   * between jobs beside the JavaScript heap (a SQLite connection's page cache, say).
   */
  reclaim?: string;
  setup: Setup;
  limits: ThreadWorkerLimits;
  errors: ThreadWorkerErrors;
  resourceLimits?: ResourceLimits;
}

/**
 * The module of a file beside `meta` (its `import.meta.url`): `name.js` when built, `name.ts` when
 * running from the sources under Vitest.
 */
export function siblingModule(meta: string, name: string): string {
  const extension = new URL(meta).pathname.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${name}${extension}`, meta).href;
}

// The worker's whole program, a CommonJS script: it imports the module by its absolute URL, says
// when it is ready, then runs one job at a time. From the sources (tests), hooks do what the build
// does: the sources import each other as `.js` and `@kith/common` as its build, which the resolve
// hook sends to the `.ts` files; and the load hook turns TypeScript into JavaScript (Node's own
// type stripping refuses constructor parameter properties).
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.module.endsWith('.ts')) {
  const { registerHooks, stripTypeScriptTypes } = require('node:module');
  registerHooks({
    load(url, context, next) {
      if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
      const { source } = next(url, { ...context, format: 'module' });
      const code = stripTypeScriptTypes(String(source), { mode: 'transform', sourceUrl: url });
      return { format: 'module', source: code, shortCircuit: true };
    },
    resolve(specifier, context, next) {
      if (specifier === '@kith/common') return next(workerData.commonSource, context);
      try {
        return next(specifier, context);
      } catch (error) {
        const relative = specifier.startsWith('./') || specifier.startsWith('../');
        if (error && error.code === 'ERR_MODULE_NOT_FOUND' && relative && specifier.endsWith('.js')) {
          return next(specifier.slice(0, -3) + '.ts', context);
        }
        throw error;
      }
    },
  });
}
import(workerData.module).then((module) => {
  const fn = module[workerData.exported];
  parentPort.on('message', async ({ id, input, reclaim }) => {
    if (reclaim) {
      const release = workerData.reclaim === undefined ? undefined : module[workerData.reclaim];
      try {
        if (typeof release === 'function') await release(workerData.setup);
      } catch {
        // Giving back a cache is an economy: a failure leaves it kept, as before.
      }
      if (typeof gc === 'function') gc({ type: 'major', flavor: 'last-resort' });
      parentPort.postMessage({ reclaimed: true });
      return;
    }
    let answer;
    let transfer = [];
    try {
      const output = await fn(input, workerData.setup);
      // Bytes are moved, not copied: the server's thread gets them without a copy in its heap.
      if (output instanceof Uint8Array && output.buffer instanceof ArrayBuffer) transfer = [output.buffer];
      answer = { id, output };
    } catch (error) {
      answer = { id, error: String((error && error.message) || error) };
    }
    parentPort.postMessage(answer, transfer);
  });
  parentPort.postMessage({ ready: true });
});
`;

/** Where `@kith/common`'s sources are, for a worker running from the sources. */
const COMMON_SOURCE = new URL('../../../common/src/index.ts', import.meta.url).href;

type Answer<Out> = { ready: true } | { reclaimed: true } | { id: number; output: Out } | { id: number; error: string };

interface Job<In, Out> {
  id: number;
  input: In;
  transfer: readonly Transferable[];
  resolve: (output: Out) => void;
  reject: (error: Error) => void;
  /** Stops listening to the caller's signal. */
  release: () => void;
}

/** Runs `options.exported` of `options.module` in a worker thread started on demand, one job at a time. */
export class ThreadWorker<In, Out, Setup = undefined> {
  private worker: Worker | null = null;
  private ready = false;
  /** Jobs not yet handed to the worker, oldest first. */
  private readonly waiting: Job<In, Out>[] = [];
  /** The job the worker runs now, with its deadline. */
  private current: { job: Job<In, Out>; timer: NodeJS.Timeout } | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private reclaimTimer: NodeJS.Timeout | null = null;
  private lastId = 0;

  constructor(private readonly options: ThreadWorkerOptions<Setup>) {}

  /** The thread id of the worker, or null while none runs. */
  get threadId(): number | null {
    return this.worker?.threadId ?? null;
  }

  /** How many times an idle worker was asked to collect its garbage (`idleReclaimMs`; tests). */
  reclaims = 0;
  /** How many times it said it had (tests). */
  reclaimed = 0;

  /** How many jobs wait for the worker or run in it. */
  get pending(): number {
    return this.waiting.length + (this.current === null ? 0 : 1);
  }

  /**
   * The function's answer for `input` (copied to the worker; `transfer` moves buffers instead).
   * Rejects with the caller's errors: past the deadline, the worker died, stopped, the function
   * threw, the worker could not start; and with the signal's reason when that aborts first.
   */
  run(input: In, options: { transfer?: readonly Transferable[]; signal?: AbortSignal } = {}): Promise<Out> {
    const { signal } = options;
    if (signal?.aborted === true) return Promise.reject(this.abortReason(signal));
    return new Promise<Out>((resolve, reject) => {
      this.lastId += 1;
      const onAbort = () => this.abandon(job, this.abortReason(signal as AbortSignal));
      const job: Job<In, Out> = {
        id: this.lastId,
        input,
        transfer: options.transfer ?? [],
        resolve,
        reject,
        release: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(job);
      this.next();
    });
  }

  /** Terminates the worker and refuses the jobs not done yet (tests, shutdown). */
  async stop(): Promise<void> {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.clearReclaim();
    const worker = this.worker;
    this.worker = null;
    this.ready = false;
    const jobs = [...(this.current === null ? [] : [this.current.job]), ...this.waiting.splice(0)];
    if (this.current !== null) clearTimeout(this.current.timer);
    this.current = null;
    for (const job of jobs) finish(job, this.options.errors.stopped());
    await worker?.terminate();
  }

  /** Hands the next waiting job to the worker once it is free and ready, starting one if needed. */
  private next(): void {
    if (this.current !== null) return;
    if (this.waiting.length === 0) {
      this.idle();
      return;
    }
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.clearReclaim();
    const worker = this.worker ?? this.start();
    // Held while it has work, so a process with nothing else to do waits for the answer.
    worker.ref();
    if (!this.ready) return;
    const job = this.waiting.shift() as Job<In, Out>;
    // The deadline starts when the worker gets the job: time spent waiting behind another job or
    // for the worker to start is not this job's.
    const timer = setTimeout(() => this.abandon(job, this.options.errors.timeout()), this.options.limits.deadlineMs);
    this.current = { job, timer };
    worker.postMessage({ id: job.id, input: job.input }, job.transfer);
  }

  private start(): Worker {
    const { module, exported, reclaim, setup, resourceLimits } = this.options;
    const worker = new Worker(PROGRAM, {
      eval: true,
      workerData: { module, exported, reclaim, setup, commonSource: COMMON_SOURCE },
      ...(resourceLimits === undefined ? {} : { resourceLimits }),
    });
    this.worker = worker;
    this.ready = false;
    let crash: Error | null = null;
    worker.on('message', (answer: Answer<Out>) => {
      if (worker !== this.worker) return;
      if ('ready' in answer) {
        this.ready = true;
        this.next();
        return;
      }
      if ('reclaimed' in answer) {
        // What the worker freed is in glibc's heaps, which keep it until trimmed (lib/malloc-trim.ts).
        this.reclaimed += 1;
        trimSoon();
        return;
      }
      const current = this.current;
      if (current === null || current.job.id !== answer.id) return;
      clearTimeout(current.timer);
      this.current = null;
      if ('output' in answer) finish(current.job, null, answer.output);
      else finish(current.job, this.options.errors.threw(answer.error));
      this.next();
    });
    // Out of memory, or a broken program: the exit that follows fails the job concerned.
    worker.on('error', (error: Error) => {
      crash = error;
    });
    worker.once('exit', () => {
      if (worker !== this.worker) return;
      this.worker = null;
      const current = this.current;
      if (current !== null) {
        clearTimeout(current.timer);
        this.current = null;
        finish(current.job, this.options.errors.died());
      } else if (!this.ready) {
        // It never got ready: the job that started it fails, so a worker that cannot start fails
        // each job once instead of restarting for ever.
        const first = this.waiting.shift();
        if (first !== undefined) finish(first, this.options.errors.notStarted(crash?.message ?? 'exited'));
      }
      this.ready = false;
      this.next();
    });
    return worker;
  }

  /**
   * Gives up a job (deadline, abort). One the worker runs costs the worker: nothing else stops a
   * running function, so it is terminated and the next job gets a new one.
   */
  private abandon(job: Job<In, Out>, error: Error): void {
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

  /** Nothing to run: the worker no longer holds the process, and exits after `idleStopMs`. */
  private idle(): void {
    const worker = this.worker;
    if (worker === null || this.idleTimer !== null) return;
    worker.unref();
    const reclaimMs = this.options.limits.idleReclaimMs;
    if (reclaimMs !== undefined && this.ready) {
      this.reclaimTimer = setTimeout(() => {
        this.reclaimTimer = null;
        if (this.worker === worker && this.current === null && this.waiting.length === 0) {
          worker.postMessage({ reclaim: true });
          this.reclaims += 1;
        }
      }, reclaimMs).unref();
    }
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.worker !== worker || this.current !== null || this.waiting.length > 0) return;
      this.worker = null;
      this.ready = false;
      // The thread's heap is all free once it has exited, but glibc keeps it (lib/malloc-trim.ts).
      void worker.terminate().then(trimSoon);
    }, this.options.limits.idleStopMs).unref();
  }

  private clearReclaim(): void {
    if (this.reclaimTimer !== null) clearTimeout(this.reclaimTimer);
    this.reclaimTimer = null;
  }

  private abortReason(signal: AbortSignal): Error {
    return signal.reason instanceof Error ? signal.reason : this.options.errors.timeout();
  }
}

function finish<In, Out>(job: Job<In, Out>, error: Error | null, output?: Out): void {
  job.release();
  if (error !== null) job.reject(error);
  else job.resolve(output as Out);
}
