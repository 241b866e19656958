import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { canTrimMalloc, TRIM_DEBOUNCE_MS, trimSoon, trimStats } from './malloc-trim.js';

// A program that leaves 35 MB free in the middle of glibc's heap (every eighth buffer kept, so the
// heap's top is never free and glibc cannot shrink it by itself), then trims: it prints the RSS
// before and after, in MB, and what trimMalloc answered.
const PROGRAM = `
import { readFileSync } from 'node:fs';
const { trimMalloc } = await import(process.argv[1]);
const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
const kept = [];
let all = [];
for (let i = 0; i < 20000; i += 1) {
  const buffer = new ArrayBuffer(2048);
  new Uint8Array(buffer).fill(1);
  all.push(buffer);
  if (i % 8 === 0) kept.push(buffer);
}
all = null;
globalThis.gc();
globalThis.gc();
const before = rss();
const trimmed = trimMalloc();
console.log(JSON.stringify({ before, after: rss(), trimmed, kept: kept.length }));
`;

describe('malloc trim (native/malloc-trim)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // Kith's machines (Debian, glibc) build the addon with `npm install`: its absence there is a
  // broken install, not a platform without malloc_trim.
  it('is built and supported on this glibc machine', () => {
    expect(canTrimMalloc()).toBe(true);
  });

  it('gives the free pages in the middle of the C heap back to the system', () => {
    const module = fileURLToPath(new URL('./malloc-trim.ts', import.meta.url));
    const result = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', PROGRAM, module], {
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    const { before, after, trimmed, kept } = JSON.parse(result.stdout) as Record<string, number | boolean>;
    expect(kept).toBe(2500);
    expect(trimmed).toBe(true);
    // About 35 MB were free; the trim gives back most of them.
    expect(Number(before) - Number(after)).toBeGreaterThan(15);
  });

  it('trims once for the calls of a moment, without holding the process', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const runs = trimStats.runs;
    trimSoon();
    trimSoon();
    vi.advanceTimersByTime(TRIM_DEBOUNCE_MS - 1);
    trimSoon();
    expect(trimStats.runs).toBe(runs);
    vi.advanceTimersByTime(1);
    expect(trimStats.runs).toBe(runs + 1);
    trimSoon();
    vi.advanceTimersByTime(TRIM_DEBOUNCE_MS);
    expect(trimStats.runs).toBe(runs + 2);
  });
});
