import { createRequire } from 'node:module';

interface Addon {
  trim(): boolean;
  supported(): boolean;
}

/**
 * `@kith/malloc-trim` (native/malloc-trim), built by `npm install` with node-gyp; an optional
 * dependency, so a machine that cannot build it runs without (null).
 */
function loadAddon(): Addon | null {
  try {
    return createRequire(import.meta.url)('@kith/malloc-trim') as Addon;
  } catch {
    return null;
  }
}

let addon: Addon | null | undefined;

/** Whether the C allocator's free memory can be given back here (glibc, with the addon built). */
export function canTrimMalloc(): boolean {
  addon ??= loadAddon();
  return addon?.supported() ?? false;
}

/**
 * Hands the free pages of every glibc heap (the main one and each thread's) back to the system.
 * glibc keeps what a program frees for its next allocations, and returns only the top of a heap:
 * SQLite's page caches freed in the middle, and the heap of a worker thread that exited, stayed in
 * an idle server's memory (10 MB of 164 in the bench, issue 23). It walks every heap under its lock
 * (a few ms), so it runs only when the server is quiet (`trimSoon`).
 */
export function trimMalloc(): boolean {
  addon ??= loadAddon();
  return addon?.trim() ?? false;
}

let enabled = false;

/**
 * Lets `trimSoon` trim in this process: the server's entry (main.ts) calls it. The allocator is
 * the process's, so library code run elsewhere (tests, the command line, the benchmark's tools)
 * leaves it alone.
 */
export function enableMallocTrim(): void {
  enabled = true;
}

/** Calls to `trimSoon` closer than this to the last trim share it. */
export const TRIM_DEBOUNCE_MS = 200;

let pending: NodeJS.Timeout | null = null;
/** How many times a trim came due, run or not (tests). */
export const trimStats = { runs: 0 };

/**
 * Trims a moment from now (where `enableMallocTrim` was called), once for every call meanwhile:
 * when the server has paused (lib/quiet-reclaim.ts), and when a worker thread has exited (its heap
 * is then all free). The timer does not hold the process.
 */
export function trimSoon(): void {
  if (pending !== null) return;
  pending = setTimeout(() => {
    pending = null;
    if (enabled) trimMalloc();
    trimStats.runs += 1;
  }, TRIM_DEBOUNCE_MS).unref();
}
