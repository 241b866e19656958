import v8 from 'node:v8';
import { trimSoon } from './malloc-trim.js';

/** How long without a request starting or ending before memory is given back. */
export const QUIET_RECLAIM_MS = 1000;

/** The heap growth since the last time below which nothing is done (a lone request's garbage). */
export const QUIET_RECLAIM_GROWTH_BYTES = 4 * 1024 * 1024;

/**
 * Gives memory back once the server has been quiet for a moment (issue 23, idle memory). Under load
 * V8 grows the young generation to its maximum (16 MB with `--max-semi-space-size=8`) and the old
 * one past its live objects; at rest nothing allocates, so no collection runs and V8's own memory
 * reducer waits 8 s or more, and often finds no reason to start. After `quietMs` without a request
 * starting or ending, one collection with V8's "last resort" flavour (the only one that shrinks the
 * young generation and compacts the old one) returns it, and `release` stops the SQLite checkpoint
 * thread, which the last write would have kept for up to 10 s more (db/checkpointer.ts).
 *
 * The collection runs only if the heap grew by `minGrowthBytes` since the last one: a lone request
 * does not cost a full collection. A request that arrives during the collection waits for it (tens of ms,
 * bench/README.md); one that arrives under steady load never meets it, as the server is never quiet.
 *
 * `collect` is V8's `gc`, exposed by `--expose-gc` (`npm run serve`); without it (tests, `npm run
 * dev`) only `release` runs.
 */
export class QuietReclaim {
  /** When a request last started or ended (`performance.now()`). */
  private lastActivity = 0;
  private timer: NodeJS.Timeout | null = null;
  private heapAfterLast: number;
  /** How many collections it ran (tests). */
  collections = 0;

  constructor(
    private readonly options: {
      quietMs: number;
      minGrowthBytes: number;
      collect: NodeJS.GCFunction | undefined;
      release: () => void;
      heapBytes?: () => number;
    },
  ) {
    this.heapAfterLast = this.heapBytes();
  }

  /** A request started or ended: costs a clock read, and a timer once per quiet period. */
  touch(): void {
    this.lastActivity = performance.now();
    if (this.timer === null) this.arm(this.options.quietMs);
  }

  /** No more reclaiming (shutdown, tests). */
  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.check(), ms).unref();
  }

  private check(): void {
    this.timer = null;
    // Requests came meanwhile: wait until `quietMs` after the last one.
    const quietFor = performance.now() - this.lastActivity;
    if (quietFor < this.options.quietMs) {
      this.arm(this.options.quietMs - quietFor);
      return;
    }
    this.options.release();
    const collect = this.options.collect;
    if (collect !== undefined && this.heapBytes() >= this.heapAfterLast + this.options.minGrowthBytes) {
      collect({ type: 'major', flavor: 'last-resort' });
      this.heapAfterLast = this.heapBytes();
      this.collections += 1;
    }
    // What `release` and the collection freed outside V8's heap (SQLite's page caches, buffers) is
    // still glibc's (lib/malloc-trim.ts).
    trimSoon();
  }

  private heapBytes(): number {
    return this.options.heapBytes?.() ?? v8.getHeapStatistics().total_physical_size;
  }
}
