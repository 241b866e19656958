import autocannon from 'autocannon';
import { cpuMs, RssSampler } from './server.ts';

/**
 * One request of a scenario; each connection cycles through the list (key rotation), starting at its
 * own place in it (`fire`).
 */
export interface LoadRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Sees every answer's status and body (used by `post` to learn the ids it must clean up). */
  onResponse?: (status: number, body: string) => void;
}

export interface LoadOptions {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  requests: LoadRequest[];
  connections: number;
  durationS: number;
  warmupS: number;
  /** The processes whose RSS is sampled during warm-up and measurement (the server's). */
  pids?: number[];
  /** How long the warm-up may be stretched while connections wait for their first answer (default 60 s). */
  maxRampS?: number;
}

export interface LoadResult {
  /** Answers per second of the measured window. */
  rps: number;
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
  /** Answers in the measured window. */
  requests: number;
  /** Non-2xx answers, socket errors and timeouts, warm-up included. */
  errors: number;
  /** Count of each status code that was not 2xx (warm-up included), plus `socket` and `timeout`. */
  badStatuses: Record<string, number>;
  rss_mb: number | null;
  /** The server's CPU time per answer of the measured window (µs, all its threads); null without `pids`. */
  cpu_us: number | null;
  /** Seconds until every connection had its first answer (null: never); the window opened after it. */
  ready_s: number | null;
}

/** The q-quantile (0–1) of sorted values, nearest rank. */
export function quantile(sorted: ArrayLike<number>, q: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] ?? null;
}

export function median(values: number[]): number | null {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

/** A growable list of latencies (ms) that sorts without boxing. */
class Samples {
  private data = new Float64Array(1 << 14);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  sorted(): Float64Array {
    return this.data.slice(0, this.length).sort();
  }
}

interface Tally {
  count: number;
  errors: number;
  bad: Record<string, number>;
}

/** Longest the warm-up may be stretched, by default, while waiting for every connection to be served once. */
const MAX_RAMP_S = 60;

/**
 * A request with no answer after this long counts as a timeout. Longer than the ramp: libuv accepts
 * one new connection per turn of the event loop, and a turn of a server busy with 30 ms searches on
 * 50 connections lasts about 1.5 s, so the last connections of a run wait that long only to be
 * accepted (bench/README.md). Their wait shows as the run's `connections_ready_s`, not as errors.
 */
const REQUEST_TIMEOUT_S = MAX_RAMP_S + 30;

/**
 * One autocannon run: warm-up, then the measured window. Answers before the window only count for
 * errors. The window opens once the warm-up time has passed AND every connection has had an answer:
 * a Node server under load accepts about one new connection per event-loop turn, so with slow
 * requests the last of 50 connections can wait seconds for its first answer, and those waits would
 * otherwise land in the measurement. The window then lasts `durationS`, and the run is stopped. One
 * run for both phases also keeps the window steady: stopping the warm-up separately would leave its
 * in-flight requests queued on the server in front of the measured ones.
 */
async function fire(
  options: LoadOptions,
  warm: Tally,
  measured: Tally,
  latencies: Samples,
): Promise<{ windowS: number; readyS: number | null; cpuMs: number | null }> {
  const requests: autocannon.Request[] = options.requests.map((r) => {
    const request: autocannon.Request = { method: r.method, path: r.path, headers: r.headers ?? {} };
    if (r.body !== undefined) request.body = r.body;
    const onResponse = r.onResponse;
    if (onResponse !== undefined) request.onResponse = (status: number, body: string) => onResponse(status, body);
    return request;
  });
  const maxRampS = options.maxRampS ?? MAX_RAMP_S;
  let started = performance.now();
  let readyAt: number | null = null;
  let measureFrom = Number.POSITIVE_INFINITY;
  let last = 0;
  // The server's CPU time when the window opens and when it is stopped.
  let cpuFrom: number | null = null;
  let cpuTo: number | null = null;
  const served = new Set<unknown>();
  const open = (now: number) => {
    if (measureFrom !== Number.POSITIVE_INFINITY) return;
    const elapsedS = (now - started) / 1000;
    if (elapsedS >= options.warmupS && (readyAt !== null || elapsedS >= options.warmupS + maxRampS)) {
      measureFrom = now;
      cpuFrom = options.pids === undefined ? null : cpuMs(options.pids);
    }
  };
  const tallyNow = (client: unknown): Tally => {
    const now = performance.now();
    if (client !== null && readyAt === null) {
      served.add(client);
      if (served.size >= options.connections) readyAt = now;
    }
    open(now);
    if (now < measureFrom) return warm;
    last = now;
    return measured;
  };
  // Each connection starts at its own request: autocannon's all start at the first and cycle in
  // step, so 50 connections acted as one member after another (a post run's writes all came from
  // one author at a time, queued on that author's row) instead of as the group's members at once.
  let nextStart = 0;
  const setupClient = (client: autocannon.Client) => {
    if (requests.length < 2) return;
    const start = nextStart++ % requests.length;
    const own = [...requests.slice(start), ...requests.slice(0, start)];
    // Copies: autocannon keeps each request's encoded form on the object.
    client.setRequests(own.map((request) => ({ ...request })));
  };
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        setupClient,
        // A cap only: the run is stopped once the measured window is complete.
        duration: options.warmupS + maxRampS + options.durationS + 5,
        // Ticks this often: a stopped run ends within 100 ms.
        sampleInt: 100,
        requests,
        timeout: REQUEST_TIMEOUT_S,
      },
      (error: unknown) => {
        clearInterval(timer);
        if (error === null || error === undefined) resolve();
        else reject(toError(error));
      },
    );
    instance.on('start', () => {
      started = performance.now();
    });
    const timer = setInterval(() => {
      const now = performance.now();
      open(now);
      if (now - measureFrom >= options.durationS * 1000) {
        clearInterval(timer);
        cpuTo = options.pids === undefined ? null : cpuMs(options.pids);
        instance.stop();
      }
    }, 20);
    instance.on('response', (client: autocannon.Client, statusCode: number, _bytes: number, ms: number) => {
      const tally = tallyNow(client);
      tally.count += 1;
      if (tally === measured) latencies.push(ms);
      if (statusCode < 200 || statusCode > 299) {
        tally.errors += 1;
        tally.bad[String(statusCode)] = (tally.bad[String(statusCode)] ?? 0) + 1;
      }
    });
    instance.on('reqError', (error: unknown) => {
      const tally = tallyNow(null);
      tally.errors += 1;
      const kind = error instanceof Error && /timed out/.test(error.message) ? 'timeout' : 'socket';
      tally.bad[kind] = (tally.bad[kind] ?? 0) + 1;
    });
  });
  return {
    // From the opening of the window to the last answer counted in it.
    windowS: measured.count === 0 ? options.durationS : Math.max(last - measureFrom, 1) / 1000,
    readyS: readyAt === null ? null : (readyAt - started) / 1000,
    cpuMs: cpuFrom === null || cpuTo === null ? null : cpuTo - cpuFrom,
  };
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Warm-up, then the measured window, in one autocannon run. Latency percentiles come from every
 * answer of the window (autocannon's own histogram rounds to whole milliseconds).
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const sampler = options.pids === undefined ? null : new RssSampler(options.pids);
  try {
    const warm: Tally = { count: 0, errors: 0, bad: {} };
    const measured: Tally = { count: 0, errors: 0, bad: {} };
    const latencies = new Samples();
    const { windowS, readyS, cpuMs: windowCpuMs } = await fire(options, warm, measured, latencies);
    const sorted = latencies.sorted();
    const bad: Record<string, number> = { ...warm.bad };
    for (const [code, n] of Object.entries(measured.bad)) bad[code] = (bad[code] ?? 0) + n;
    return {
      rps: measured.count / windowS,
      p50_ms: quantile(sorted, 0.5),
      p95_ms: quantile(sorted, 0.95),
      p99_ms: quantile(sorted, 0.99),
      requests: measured.count,
      errors: warm.errors + measured.errors,
      badStatuses: bad,
      rss_mb: sampler?.stop() ?? null,
      cpu_us: windowCpuMs === null || measured.count === 0 ? null : (windowCpuMs * 1000) / measured.count,
      ready_s: readyS,
    };
  } finally {
    sampler?.stop();
  }
}
