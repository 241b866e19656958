import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the background connection copies the WAL back into the database file. */
export const CHECKPOINT_INTERVAL_MS = 1000;

/**
 * Past this many WAL frames (4 KiB each, so 64 MiB), the worker also runs a TRUNCATE checkpoint.
 * Under a steady stream of commits a PASSIVE checkpoint never finds the WAL fully copied, so SQLite
 * never starts it over and it would grow without end. TRUNCATE waits for the current transaction,
 * holds new writes back while it copies what the last PASSIVE one left (little), and empties the file.
 */
export const TRUNCATE_AFTER_FRAMES = 16_384;

// The worker's whole program. It runs as a CommonJS script, so it needs the driver's absolute path.
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file);
db.pragma('busy_timeout = 5000');
const checkpoint = () => {
  try {
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    if (log > workerData.truncateFrames) db.pragma('wal_checkpoint(TRUNCATE)');
  } catch (error) {
    parentPort.postMessage(String(error && error.message));
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
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
 * within a second is copied once.
 */
export class BackgroundCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(file: string, onError: (message: string) => void) {
    this.worker = new Worker(PROGRAM, {
      eval: true,
      workerData: {
        file,
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        intervalMs: CHECKPOINT_INTERVAL_MS,
        truncateFrames: TRUNCATE_AFTER_FRAMES,
      },
    });
    this.worker.on('message', (message: string) => onError(message));
    this.worker.on('error', (error: Error) => onError(error.message));
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    // A server that is stopping does not wait for the next tick.
    this.worker.unref();
  }

  /** Stops the worker and waits until its connection is closed. */
  async stop(): Promise<void> {
    // Held again, or a process whose other work is done would exit before the worker has.
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.exited;
  }
}
