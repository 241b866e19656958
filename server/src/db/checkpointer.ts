import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { trimSoon } from '../lib/malloc-trim.js';

/** How often the background connection copies the WAL back into the database file. */
export const CHECKPOINT_INTERVAL_MS = 1000;

/**
 * Past this many WAL frames (4 KiB each, so 64 MiB), the WAL is emptied. Under a steady stream of
 * commits a PASSIVE checkpoint never finds the WAL fully copied, so SQLite never starts it over and
 * it would grow without end, and every read would search a longer WAL index.
 */
export const TRUNCATE_AFTER_FRAMES = 16_384;

/** How long a TRUNCATE checkpoint waits for readers of the WAL while writes are paused for it. */
export const TRUNCATE_READER_WAIT_MS = 250;

/** What the worker tells the main thread. */
type Report = { kind: 'due' | 'truncated' } | { kind: 'error'; message: string };

// The worker's whole program. It runs as a CommonJS script, so it needs the driver's absolute path.
// A TRUNCATE checkpoint takes the write lock and then waits for readers of the WAL; started while the
// server keeps writing, it waited seconds for the lock and then held every write back (bench/README.md).
// So the worker only says when one is due, and runs it when the main thread has paused its writes.
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file);
// It waits only for readers, with the server's writes paused: briefly, or the pause would show.
db.pragma('busy_timeout = ' + workerData.readerWaitMs);
let due = false;
// A reader that keeps an old snapshot (a backup, say) makes a TRUNCATE fail: the next one is then
// due only after as many frames again, so writes are not paused every second meanwhile.
let truncateAt = workerData.truncateFrames;
const passive = (last) => {
  try {
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    if (!last && log > truncateAt && !due) {
      due = true;
      parentPort.postMessage({ kind: 'due' });
    }
  } catch (error) {
    parentPort.postMessage({ kind: 'error', message: String(error && error.message) });
  }
};
const truncate = () => {
  let emptied = false;
  try {
    const [{ busy, log }] = db.pragma('wal_checkpoint(TRUNCATE)');
    emptied = busy === 0;
    if (!emptied) truncateAt = log + workerData.truncateFrames;
  } catch (error) {
    if (!(error && error.code === 'SQLITE_BUSY')) parentPort.postMessage({ kind: 'error', message: String(error && error.message) });
    else truncateAt += workerData.truncateFrames;
  }
  if (emptied) truncateAt = workerData.truncateFrames;
  due = false;
  parentPort.postMessage({ kind: 'truncated' });
};
const timer = setInterval(() => passive(false), workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'truncate') return truncate();
  if (message !== 'stop') return;
  clearInterval(timer);
  // A last round, so what was written before the stop is in the database file.
  passive(true);
  db.close();
  parentPort.close();
});
`;

/**
 * After this long without a write, the worker stops; the next write starts another. Its PASSIVE
 * round every second has copied the last writes by then, so waiting longer only keeps a thread
 * and its engine (about 10 MB) alive for nothing; at 30 s every read that noted its caller's
 * activity kept it for up to a minute, also in a server otherwise idle. A start costs a few tens
 * of ms of a background thread, once per pause in the writes.
 */
export const IDLE_STOP_MS = 5000;

/**
 * Checkpoints in a worker thread (embedded mode). SQLite's automatic checkpoint runs inside the
 * commit that crosses 1,000 WAL pages: it copies those pages into the database file and waits for
 * the disk, on the thread that answers every request. On the posting benchmark that was about half
 * of each post's time (bench/README.md). Here the server's connection never checkpoints
 * (`wal_autocheckpoint = 0`); a connection of its own in a worker runs a PASSIVE checkpoint every
 * second, which neither waits for nor blocks readers and the writer. A page written many times
 * within a second is copied once. When the WAL has grown past `TRUNCATE_AFTER_FRAMES`, the write
 * batcher pauses between two batches for `truncateIfDue()` (write-batch.ts); reads go on meanwhile.
 *
 * The worker runs only while there is writing to copy: a thread with its own JavaScript engine is
 * about 15 MB of the server's memory, a tenth of an idle server (bench/README.md). The first write
 * (`wrote()`) starts it, and it stops after `IDLE_STOP_MS` without one, when its last rounds have
 * copied everything.
 */
export class BackgroundCheckpointer {
  /** The worker that checkpoints now; null while nothing is written. */
  private worker: Worker | null = null;
  /** Every worker not yet exited (one stopping for idleness may still be closing its connection). */
  private readonly live = new Map<Worker, Promise<void>>();
  private idleTimer: NodeJS.Timeout | null = null;
  private wroteSinceCheck = false;
  private failed = false;
  private due = false;
  private stopping = false;
  private truncating: Promise<void> | null = null;
  private truncated: (() => void) | null = null;

  /**
   * `onError`: checkpoints failed (the caller lets SQLite checkpoint in its commits again, and no
   * worker starts any more). `onDue`: the WAL is due to be emptied; the caller calls
   * `truncateIfDue()` between two writes.
   */
  constructor(
    private readonly file: string,
    private readonly handlers: { onError: (message: string) => void; onDue: () => void },
    private readonly idleStopMs = IDLE_STOP_MS,
  ) {}

  /** Whether a worker is checkpointing now. */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Call after every write of the server's connection: starts a worker if none runs. */
  wrote(): void {
    this.wroteSinceCheck = true;
    if (this.worker === null && !this.failed && !this.stopping) this.start();
  }

  private start(): void {
    const worker = new Worker(PROGRAM, {
      eval: true,
      // Its program holds almost nothing: small heaps keep its share of the server's memory small.
      resourceLimits: { maxOldGenerationSizeMb: 12, maxYoungGenerationSizeMb: 2 },
      workerData: {
        file: this.file,
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        intervalMs: CHECKPOINT_INTERVAL_MS,
        truncateFrames: TRUNCATE_AFTER_FRAMES,
        readerWaitMs: TRUNCATE_READER_WAIT_MS,
      },
    });
    this.worker = worker;
    const fail = (message: string) => {
      this.failed = true;
      this.handlers.onError(message);
    };
    worker.on('message', (report: Report) => {
      if (report.kind === 'error') fail(report.message);
      else if (worker !== this.worker) return;
      else if (report.kind === 'due') {
        this.due = true;
        this.handlers.onDue();
      } else this.truncated?.();
    });
    worker.on('error', (error: Error) => fail(error.message));
    const exited = new Promise<void>((resolve) =>
      worker.once('exit', () => {
        this.live.delete(worker);
        // Its heap and SQLite connection are free now, but glibc keeps them (lib/malloc-trim.ts).
        trimSoon();
        if (worker === this.worker) {
          this.worker = null;
          // Paused writes never wait for a worker that is gone.
          this.due = false;
          this.truncated?.();
        }
        resolve();
      }),
    );
    this.live.set(worker, exited);
    // A server that is stopping does not wait for the next tick.
    worker.unref();
    this.idleTimer ??= setInterval(() => this.stopIfIdle(), this.idleStopMs).unref();
  }

  /** Stops the worker when nothing was written for a whole round of the idle timer. */
  private stopIfIdle(evenAfterWrites = false): void {
    const worker = this.worker;
    const idle = (evenAfterWrites || !this.wroteSinceCheck) && !this.due && this.truncating === null;
    this.wroteSinceCheck = false;
    if (worker === null || !idle) return;
    this.worker = null;
    if (this.idleTimer !== null) clearInterval(this.idleTimer);
    this.idleTimer = null;
    worker.postMessage('stop');
  }

  /**
   * Stops the worker now unless a TRUNCATE is due or running; its last round copies what was
   * written, and the next write starts another. For a server whose requests paused
   * (lib/quiet-reclaim.ts): a worker kept for the rest of `IDLE_STOP_MS` held its 15-20 MB for
   * nothing, and a write that comes later pays a start in a background thread.
   */
  stopUnlessDue(): void {
    this.stopIfIdle(true);
  }

  /**
   * When the WAL is due to be emptied: runs the TRUNCATE checkpoint in the worker and resolves when
   * it is over (whether it succeeded or a reader held it back). Call it with no write transaction
   * open; `null` when nothing is due, so the caller does not wait.
   */
  truncateIfDue(): Promise<void> | null {
    if (this.truncating !== null) return this.truncating;
    const worker = this.worker;
    if (!this.due || worker === null) return null;
    this.due = false;
    // Held while writes wait for it, or a process with nothing else to do would exit meanwhile.
    worker.ref();
    this.truncating = new Promise<void>((resolve) => {
      this.truncated = () => {
        this.truncated = null;
        this.truncating = null;
        if (!this.stopping) worker.unref();
        resolve();
      };
      worker.postMessage('truncate');
    });
    return this.truncating;
  }

  /** Stops the workers and waits until their connections are closed. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.idleTimer !== null) clearInterval(this.idleTimer);
    this.idleTimer = null;
    this.worker?.postMessage('stop');
    // Held again, or a process whose other work is done would exit before the workers have.
    for (const worker of this.live.keys()) worker.ref();
    await Promise.all(this.live.values());
  }
}
