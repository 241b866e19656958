import type { ScenarioResult } from './types.ts';

/** Rounds for the JSON: `digits` decimals, null stays null. */
export function round(value: number | null | undefined, digits = 2): number | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function fmt(value: number | null, digits: number): string {
  if (value === null) return '-';
  if (digits === 0 || Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(digits);
}

/** Figures with more digits when small: 0.042, 1.23, 12.3, 123. */
function fmtMs(value: number | null): string {
  if (value === null) return '-';
  if (value < 1) return value.toFixed(3);
  if (value < 10) return value.toFixed(2);
  if (value < 100) return value.toFixed(1);
  return Math.round(value).toString();
}

/**
 * The stdout table: one line per scenario, errors flagged with `!`. `1c` columns: one connection
 * (unloaded latency); `1c/raw`: that p50 over the raw SQL's median.
 */
export function formatTable(results: ScenarioResult[]): string {
  const header = [
    '  scenario',
    'rps',
    'p50 ms',
    'p99 ms',
    'baseline',
    'ratio',
    'raw ms',
    '1c p50',
    '1c p95',
    '1c/raw',
    'rss MB',
    'errors',
  ];
  const rows = results.map((r) => [
    r.errors > 0 || r.requests === 0 ? `! ${r.name}` : `  ${r.name}`,
    fmt(r.rps, 0),
    fmtMs(r.p50_ms),
    fmtMs(r.p99_ms),
    fmt(r.baseline_rps, 0),
    r.ratio === null ? '-' : `${(r.ratio * 100).toFixed(1)} %`,
    fmtMs(r.raw_ms),
    fmtMs(r.p50_1c_ms),
    fmtMs(r.p95_1c_ms),
    r.raw_ratio === null ? '-' : `${r.raw_ratio.toFixed(1)}×`,
    fmt(r.rss_mb, 0),
    String(r.errors),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
