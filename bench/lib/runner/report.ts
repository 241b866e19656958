import type { ScenarioResult } from './types.ts';

/** A scenario's row before anything is measured. */
export function emptyResult(name: string): ScenarioResult {
  return {
    name,
    rps: null,
    p50_ms: null,
    p95_ms: null,
    p99_ms: null,
    p50_1c_ms: null,
    p95_1c_ms: null,
    baseline_rps: null,
    ratio: null,
    limit_rps: null,
    limit_ratio: null,
    of_sqlite: null,
    raw_ms: null,
    raw_ratio: null,
    rss_mb: null,
    errors: 0,
    requests: 0,
  };
}

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

function percent(value: number | null): string {
  return value === null ? '-' : `${(value * 100).toFixed(1)} %`;
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
 * The machine's limit for a read (issue 23): a server that did nothing but answer over bare HTTP
 * (`baselineRps`) and run the read's raw SQL once (`rawMs`) serves `1 / (1 / baseline + raw)`.
 */
export function limitRps(baselineRps: number | null, rawMs: number | null): number | null {
  if (baselineRps === null || rawMs === null || baselineRps <= 0 || rawMs < 0) return null;
  return 1 / (1 / baselineRps + rawMs / 1000);
}

/**
 * Fills the ratios of every result once the run's baseline is known: against the bare baseline,
 * against the machine's limit, against the raw SQL (unloaded), and, given the rps of the same
 * scale's last SQLite run, against SQLite. A read that measured its own baseline just before it
 * keeps it; the others take the run's. `events` has no baseline of its kind.
 */
export function fillRatios(
  results: ScenarioResult[],
  baselineRps: number | null,
  sqliteRps: ReadonlyMap<string, number> | null,
): void {
  const share = (rps: number | null, of: number | null | undefined) =>
    rps !== null && of !== null && of !== undefined && of > 0 ? rps / of : null;
  for (const r of results) {
    if (r.name !== 'events') {
      r.baseline_rps ??= baselineRps;
      r.ratio = share(r.rps, r.baseline_rps);
      r.limit_rps = limitRps(r.baseline_rps, r.raw_ms);
      r.limit_ratio = share(r.rps, r.limit_rps);
    }
    r.raw_ratio = r.p50_1c_ms !== null && r.raw_ms !== null && r.raw_ms > 0 ? r.p50_1c_ms / r.raw_ms : null;
    r.of_sqlite = sqliteRps === null ? null : share(r.rps, sqliteRps.get(r.name));
  }
}

/**
 * The stdout table: one line per scenario, errors flagged with `!`. `limit`: the machine's limit
 * for the read (`limitRps`); `1c` columns: one connection (unloaded latency); `1c/raw`: that p50 over
 * the raw SQL's median; `of sqlite` (PostgreSQL runs): rps over the last SQLite run's.
 */
export function formatTable(results: ScenarioResult[]): string {
  const withSqlite = results.some((r) => r.of_sqlite !== null);
  const header = [
    '  scenario',
    'rps',
    'p50 ms',
    'p99 ms',
    'baseline',
    'ratio',
    'limit',
    'of limit',
    'raw ms',
    '1c p50',
    '1c p95',
    '1c/raw',
    'cpu µs',
    'rss MB',
    'errors',
    ...(withSqlite ? ['of sqlite'] : []),
  ];
  const rows = results.map((r) => [
    r.errors > 0 || r.requests === 0 ? `! ${r.name}` : `  ${r.name}`,
    fmt(r.rps, 0),
    fmtMs(r.p50_ms),
    fmtMs(r.p99_ms),
    fmt(r.baseline_rps, 0),
    percent(r.ratio),
    fmt(r.limit_rps, 0),
    percent(r.limit_ratio),
    fmtMs(r.raw_ms),
    fmtMs(r.p50_1c_ms),
    fmtMs(r.p95_1c_ms),
    r.raw_ratio === null ? '-' : `${r.raw_ratio.toFixed(1)}×`,
    fmt(r.cpu_us ?? null, 0),
    fmt(r.rss_mb, 0),
    String(r.errors),
    ...(withSqlite ? [percent(r.of_sqlite)] : []),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
