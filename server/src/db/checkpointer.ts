import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

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
const passive = () => {
  try {
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    if (log > truncateAt && !due) {
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
const timer = setInterval(passive, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'truncate') return truncate();
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints in a worker thread (embedded mode). SQLite's automatic checkpoint runs inside the
 * commit that crosses 1,000 WAL pages: it copies those pages into the database file and waits for
 * the disk, on the thread that answers every request. On the posting benchmark that was about half
 * of each post's time (bench/README.md). Here the server's connection never checkpoints
 * (`wal_autocheckpoint = 0`); a connection of its own in a worker runs a PASSIVE checkpoint every
 * second, which neither waits for nor blocks readers and the writer. A page written many times
 * within a second is copied once. When the WAL has grown past `TRUNCATE_AFTER_FRAMES`, the write
 * batcher pauses between two batches for `truncateIfDue()` (write-batch.ts); reads go on meanwhile.
 */
export class BackgroundCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private due = false;
  private stopping = false;
  private truncating: Promise<void> | null = null;
  private truncated: (() => void) | null = null;

  /**
   * `onError`: checkpoints failed (the caller lets SQLite checkpoint in its commits again).
   * `onDue`: the WAL is due to be emptied; the caller calls `truncateIfDue()` between two writes.
   */
  constructor(file: string, handlers: { onError: (message: string) => void; onDue: () => void }) {
    const { onError, onDue } = handlers;
    this.worker = new Worker(PROGRAM, {
      eval: true,
      // Its program holds almost nothing: small heaps keep its share of the server's memory small.
      resourceLimits: { maxOldGenerationSizeMb: 12, maxYoungGenerationSizeMb: 2 },
      workerData: {
        file,
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        intervalMs: CHECKPOINT_INTERVAL_MS,
        truncateFrames: TRUNCATE_AFTER_FRAMES,
        readerWaitMs: TRUNCATE_READER_WAIT_MS,
      },
    });
    this.worker.on('message', (report: Report) => {
      if (report.kind === 'due') {
        this.due = true;
        onDue();
      } else if (report.kind === 'error') onError(report.message);
      else this.truncated?.();
    });
    this.worker.on('error', (error: Error) => onError(error.message));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', () => {
        // Paused writes never wait for a worker that is gone.
        this.due = false;
        this.truncated?.();
        resolve();
      }),
    );
    // A server that is stopping does not wait for the next tick.
    this.worker.unref();
  }

  /**
   * When the WAL is due to be emptied: runs the TRUNCATE checkpoint in the worker and resolves when
   * it is over (whether it succeeded or a reader held it back). Call it with no write transaction
   * open; `null` when nothing is due, so the caller does not wait.
   */
  truncateIfDue(): Promise<void> | null {
    if (this.truncating !== null) return this.truncating;
    if (!this.due) return null;
    this.due = false;
    // Held while writes wait for it, or a process with nothing else to do would exit meanwhile.
    this.worker.ref();
    this.truncating = new Promise<void>((resolve) => {
      this.truncated = () => {
        this.truncated = null;
        this.truncating = null;
        if (!this.stopping) this.worker.unref();
        resolve();
      };
      this.worker.postMessage('truncate');
    });
    return this.truncating;
  }

  /** Stops the worker and waits until its connection is closed. */
  async stop(): Promise<void> {
    // Held again, or a process whose other work is done would exit before the worker has.
    this.stopping = true;
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.exited;
  }
}
