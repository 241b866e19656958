/**
 * Shapes shared by the load runner (`bench/run.ts`): the generator's manifest as the runner reads it,
 * the options of a run, and one scenario's figures.
 */

import type { Manifest } from '../manifest.ts';

export type DbKind = 'sqlite' | 'postgres';
import type { ScaleName } from '../scale.ts';

export type Scale = ScaleName;

/**
 * `bench/data/<db>-<scale>/manifest.json`: the shape is the generator's (bench/lib/manifest.ts), so
 * the two cannot drift apart unnoticed.
 */
export type { Manifest, ManifestUser } from '../manifest.ts';

export interface RunOptions {
  scale: Scale;
  db: DbKind;
  /** Measured seconds per scenario. */
  durationS: number;
  /** Warm-up seconds before each measured run (not counted). */
  warmupS: number;
  connections: number;
  smoke: boolean;
  /** How many users open event streams (5 each). */
  streamUsers: number;
  /** Optional filter: run only these scenarios (names). */
  only: string[] | null;
  /** Where the server writes a V8 CPU profile when it stops (`--cpu-prof`); null for none. */
  cpuProfDir: string | null;
  /** Scale-out mode: this many web processes and a worker behind nginx (lib/runner/cluster.ts); null: one process. */
  processes: number | null;
}

/** What the lead's `measureWeb` (bench/lib/runner/web.ts) receives. */
export interface RunContext {
  /** Base URL of the running server, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  url: string;
  manifest: Manifest;
  options: RunOptions;
  /** Where the repository lives (for the built web client, Playwright, …). */
  repoRoot: string;
}

/** One row of the table and of `latest.json` (issue 7, item 5). */
export interface ScenarioResult {
  name: string;
  /** Requests per second (messages/s for `post`, streams opened/s for `events`). */
  rps: number | null;
  /** Latency percentiles at `connections` concurrent connections (queueing included). */
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
  /**
   * Latency with one connection (no queueing), for the scenarios that have `raw_ms`: what one
   * request costs, comparable with the raw SQL time.
   */
  p50_1c_ms: number | null;
  p95_1c_ms: number | null;
  /**
   * Requests per second of the bare node:http baseline, same connections: for a read with raw SQL,
   * measured just before it (up to 3 s); for the others, the mean of the run's full-length ones.
   */
  baseline_rps: number | null;
  /** rps / baseline_rps. */
  ratio: number | null;
  /**
   * The machine's limit for this read: `1 / (1 / baseline_rps + raw_ms / 1000)`, the rate of a
   * server that did nothing but answer over bare HTTP and run the raw SQL once (issue 23).
   */
  limit_rps: number | null;
  /** rps / limit_rps. */
  limit_ratio: number | null;
  /** On PostgreSQL: rps / the same scenario's rps in the last SQLite run of the scale (`bench/results/sqlite-<scale>.json`). */
  of_sqlite: number | null;
  /** Median time of the scenario's SQL run directly on the database; null where no query applies. */
  raw_ms: number | null;
  /**
   * p50_1c_ms / raw_ms: the request's time over its SQL's time, both unloaded (the search target is
   * ≤ 3×). With 50 connections p50_ms is mostly time spent waiting behind the other 49 requests, so
   * it is not the numerator.
   */
  raw_ratio: number | null;
  /** Peak RSS of the server process during the scenario (MB). */
  rss_mb: number | null;
  /**
   * The server's CPU time (all threads, user and system) per answer of the measured window, in µs:
   * its cost per request, steadier than rps on a machine other programs load.
   */
  cpu_us?: number | null;
  /** Non-2xx answers, socket errors and timeouts (events: streams not opened or not served). */
  errors: number;
  /** Answers counted in the measured window. */
  requests: number;
  /** Scenario-specific details (status codes of errors, event delivery figures…). */
  details?: Record<string, unknown>;
}
