/**
 * `node bench/run.ts --scale small|full [--db sqlite|postgres] [--duration S] [--connections N] [--smoke]`
 *
 * Load scenarios against a real server process on loopback (issue 7, items 2, 3, 5 and 6), on the
 * data `bench/seed.ts` generated, with the baselines measured in the same run: a bare node:http
 * server answering a body of the feed's size (`baseline_rps`, `ratio`) and each read scenario's SQL
 * run directly on the database (`raw_ms`); both are measured again just before each read, so its
 * limit is the machine's at that moment. Prints a table and writes `bench/results/latest.json`
 * (`smoke.json` for `--smoke`). Exits non-zero when a scenario had errors or no answers.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { readArgs, selectScenarios } from './lib/runner/args.ts';
import { startBaseline, type BaselineServer } from './lib/runner/baseline.ts';
import { keptAttempt, slowMachine, startPaceProbe, type PaceProbe, type PaceReading } from './lib/runner/pace.ts';
import { runEvents } from './lib/runner/events.ts';
import { runLoad, type LoadRequest } from './lib/runner/load.ts';
import {
  list,
  openRawDb,
  rawScenarios,
  timeMedian,
  restoreAfterCleanup,
  compactSearchIndex,
  type RawAnswer,
  type RawDb,
} from './lib/runner/raw.ts';
import { emptyResult, fillRatios, formatTable, round } from './lib/runner/report.ts';
import { deleteBenchPosts, loadScenarios, mixedScenario, type LoadScenario } from './lib/runner/scenarios.ts';
import { startCluster } from './lib/runner/cluster.ts';
import { rssMb, startServer, type RunningServer } from './lib/runner/server.ts';
import type { Manifest, RunContext, ScenarioResult } from './lib/runner/types.ts';
import * as web from './lib/runner/web.ts';
import type { WebMetrics } from './lib/web-metrics.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const log = (text: string) => process.stderr.write(`[bench] ${text}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The warm-up time one read scenario may use before the load (see step 2 of `main`). */
const WARMUP_BUDGET_MS = 5000;
/** A scenario measured while the machine slowed is taken at most this many times (pace.ts). */
const MAX_ATTEMPTS = 3;
const percentOf = (reading: PaceReading | null) => `${Math.round((reading?.slow_share ?? 0) * 100)} %`;

/** Sends one request of a scenario outside the load, for checks and warm-up. */
async function send(url: string, request: LoadRequest): Promise<{ status: number; body: string }> {
  const init: RequestInit = { method: request.method, headers: request.headers ?? {} };
  if (request.body !== undefined) init.body = request.body;
  const res = await fetch(`${url}${request.path}`, init);
  const body = await res.text();
  request.onResponse?.(res.status, body);
  return { status: res.status, body };
}

/** The ids an API answer lists, to compare with what the raw SQL found. */
function answerIds(name: string, body: string): RawAnswer | null {
  try {
    const value = JSON.parse(body) as unknown;
    const idsOf = (items: unknown): string[] =>
      Array.isArray(items)
        ? items.map((item) => (typeof item === 'string' ? item : String((item as { id?: unknown }).id)))
        : [];
    const obj = value as { messages?: unknown; totalItems?: unknown; children?: unknown; id?: unknown };
    if (name === 'page' || name === 'feed' || name.startsWith('search-')) {
      return { ids: idsOf(obj.messages), ...(typeof obj.totalItems === 'number' ? { total: obj.totalItems } : {}) };
    }
    if (name === 'message') return { ids: idsOf(obj.children) };
    if (name === 'notifications' || name === 'bookmarks') return { ids: idsOf(value) };
    if (name === 'public') return { ids: typeof obj.id === 'string' ? [obj.id] : [] };
  } catch {
    // not JSON: no comparison
  }
  return null;
}

/**
 * Lets the server finish what the last scenario left in flight (autocannon drops its connections at
 * the end, the server still answers them): a short pause, then one request that queues behind them.
 */
async function settle(url: string, pauseMs: number): Promise<void> {
  await sleep(pauseMs);
  const res = await fetch(`${url}/api/info`);
  await res.arrayBuffer();
  await sleep(pauseMs);
}

function sameAnswer(api: RawAnswer, raw: RawAnswer): boolean {
  if (api.total !== undefined && raw.total !== undefined && api.total !== raw.total) return false;
  return api.ids.length === raw.ids.length && api.ids.every((id, i) => id === raw.ids[i]);
}

/** The rps of each scenario in the last whole SQLite run of `scale`, if there is one. */
function sqliteRpsOf(resultsDir: string, scale: string): Map<string, number> | null {
  const file = path.join(resultsDir, `sqlite-${scale}.json`);
  if (!existsSync(file)) return null;
  const run = JSON.parse(readFileSync(file, 'utf8')) as { scenarios?: { name: string; rps: number | null }[] };
  return new Map((run.scenarios ?? []).flatMap((r) => (r.rps === null ? [] : [[r.name, r.rps] as const])));
}

async function main(): Promise<number> {
  const options = readArgs(process.argv.slice(2));
  const manifestPath =
    options.manifestPath ?? path.join(repoRoot, 'bench', 'data', `${options.db}-${options.scale}`, 'manifest.json');
  if (!existsSync(manifestPath)) {
    if (options.manifestPath !== null) throw new Error(`No data set at ${manifestPath}.`);
    // No data yet: generate it now, so one command runs the benchmark from a fresh clone.
    process.stdout.write(`No data set at ${manifestPath}: generating it (bench/seed.ts)…\n`);
    const seeded = spawnSync(
      process.execPath,
      [path.join(repoRoot, 'bench', 'seed.ts'), '--scale', options.scale, '--db', options.db],
      { stdio: 'inherit' },
    );
    if (seeded.status !== 0) throw new Error(`bench/seed.ts failed with exit code ${seeded.status}`);
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  if (!existsSync(path.join(repoRoot, 'server', 'dist', 'main.js'))) {
    throw new Error('The server is not built: run npm run build:server first.');
  }
  // The load scenarios, then the ones run.ts measures itself.
  const known = [...loadScenarios(manifest).map((s) => s.name), 'mixed', 'web', 'events'];
  const selected = options.only === null ? null : selectScenarios(options.only, known);
  const wanted = (name: string) => selected === null || selected.has(name);
  const warnings: string[] = [];
  const warn = (text: string) => {
    warnings.push(text);
    log(`warning: ${text}`);
  };
  const startedAt = new Date().toISOString();
  log(
    `${options.smoke ? 'smoke run' : 'run'}: ${options.db}, scale ${manifest.scale}, ${options.connections} connections, ` +
      `${options.durationS} s measured after ${options.warmupS} s warm-up per scenario`,
  );

  const pauseMs = options.smoke ? 100 : 200;
  const results: ScenarioResult[] = [];
  let server: RunningServer | null = null;
  let raw: RawDb | null = null;
  let rssIdle: number | null;
  const baselineRuns: number[] = [];
  let bare: BaselineServer | null = null;
  let probe: PaceProbe | null = null;
  let webResult: unknown = null;
  let cleanup: { deleted: number; failed: number; seconds: number } | null = null;
  // Whether posts were deleted (this run's, or an earlier one's): the SQLite search index is then
  // merged again once the server has stopped (compactSearchIndex says why). An interrupted run's
  // posts, deleted at this run's start, are merged away only then: this run's searches read past
  // their tombstones.
  let postsDeleted = false;

  try {
    // The probe samples from the start: the warm-up's samples tell the usual pace before the first scenario.
    const pace = startPaceProbe();
    probe = pace;
    server =
      options.processes === null
        ? await startServer(repoRoot, manifest, options.cpuProfDir)
        : await startCluster(repoRoot, manifest, options.processes, options.cpuProfDir);
    log(`server up at ${server.url} (pids ${server.pids.join(', ')})`);
    const scenarios = loadScenarios(manifest).filter((s) => wanted(s.name));
    const reads = scenarios.filter((s) => s.name !== 'post');
    const post = scenarios.find((s) => s.name === 'post');
    const rawDb = await openRawDb(manifest);
    raw = rawDb;
    const rawByName = rawScenarios(manifest);
    // An interrupted earlier run may have left posts behind: they would sit on top of the feed.
    const leftovers = await deleteBenchPosts(server.url, raw, manifest);
    if (leftovers.found > 0) log(`deleted ${leftovers.deleted} posts an earlier run left behind`);
    await restoreAfterCleanup(manifest, leftovers.found > 0);
    if (leftovers.found > 0) postsDeleted = true;

    // 1. Each read scenario answers as expected, and its raw SQL finds the same ids as the API.
    let feedBytes: number | null = null;
    const searchHits = new Map<string, number>();
    for (const scenario of reads) {
      const first = scenario.requests[0];
      if (first === undefined) continue;
      const answer = await send(server.url, first);
      if (answer.status !== scenario.expect) {
        warn(`${scenario.name}: ${first.method} ${first.path} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
        continue;
      }
      if (scenario.name === 'feed') feedBytes = Buffer.byteLength(answer.body);
      const rawRun = rawByName[scenario.name];
      const api = answerIds(scenario.name, answer.body);
      // Each search finds as many messages as the generator measured when it chose the word.
      const searchKey = scenario.name.startsWith('search-')
        ? scenario.name.slice('search-'.length).replace(/-(\w)/g, (_m, c: string) => c.toUpperCase())
        : null;
      if (searchKey !== null && api?.total !== undefined) {
        searchHits.set(scenario.name, api.total);
        const expected = (manifest.search.expected as Record<string, number | undefined>)[searchKey];
        if (expected !== undefined && expected !== api.total) {
          warn(`${scenario.name}: ${api.total} hits, the generator expected ${expected}`);
        }
      }
      if (rawRun !== undefined && api !== null) {
        const found = await rawRun(raw);
        if (!sameAnswer(api, found)) {
          warn(
            `${scenario.name}: the raw SQL found ${found.ids.length} ids (total ${found.total ?? '-'}), ` +
              `the API ${api.ids.length} (total ${api.total ?? '-'}); the queries may have drifted from the server's`,
          );
        }
      }
    }
    if (feedBytes === null) {
      // The baseline's body has the feed answer's size, also when the feed scenario is not run.
      const feed = loadScenarios(manifest).find((s) => s.name === 'feed')?.requests[0];
      const answer = feed === undefined ? null : await send(server.url, feed);
      if (answer?.status === 200) feedBytes = Buffer.byteLength(answer.body);
    }

    // 2. Warm-up: a few rounds of every read, then the raw SQL timings, then 2 s of quiet: idle RSS.
    // Every read warms up, also those --only leaves out, so the idle RSS of a partial run is the one
    // the target speaks of (issue 23: "after the warm-up of every read"): with the page alone it was
    // tens of MB lower. A read stops warming up after WARMUP_BUDGET_MS (two rounds at least): at x10
    // a PostgreSQL search takes seconds, and twenty rounds of each held the run for minutes.
    const everyRead = loadScenarios(manifest).filter((s) => s.name !== 'post');
    const rounds = options.smoke ? 5 : 20;
    const warmedMs = new Map<string, number>();
    for (let i = 0; i < rounds; i += 1) {
      for (const scenario of everyRead) {
        const request = scenario.requests[i % scenario.requests.length];
        const spent = warmedMs.get(scenario.name) ?? 0;
        if (request === undefined || (i >= 2 && spent > WARMUP_BUDGET_MS)) continue;
        const t0 = performance.now();
        await send(server.url, request);
        warmedMs.set(scenario.name, spent + performance.now() - t0);
      }
    }
    await sleep(2000);
    rssIdle = rssMb(server.pids);
    log(`idle RSS ${rssIdle === null ? '-' : rssIdle.toFixed(0)} MB; feed answer ${feedBytes ?? '-'} bytes`);

    // 3. The node:http baseline, with a body of the feed answer's size.
    const baselineBytes = feedBytes ?? 16 * 1024;
    if (feedBytes === null) warn('the feed answer could not be read: the baseline body is 16 KiB');
    const bareServer = await startBaseline(baselineBytes);
    bare = bareServer;
    const baseline = async () => {
      const b = await bareServer.measure({
        connections: options.connections,
        durationS: options.durationS,
        warmupS: options.warmupS,
      });
      if (b.errors > 0) warn(`the baseline had ${b.errors} errors`);
      baselineRuns.push(b.rps);
      log(`baseline node:http: ${Math.round(b.rps)} req/s, p99 ${b.p99_ms?.toFixed(2) ?? '-'} ms`);
    };
    if (scenarios.length > 0) await baseline();

    // A read's limit, measured just before it: the machine's pace moves within a run (the bare
    // baseline once went from 10,000 to 29,600 req/s in one run, bench/README.md), and a limit
    // measured minutes earlier could set a read against another machine. The raw SQL's median, then
    // a short bare baseline.
    const limitNow = async (rawRun: NonNullable<(typeof rawByName)[string]>) => {
      const rawMs = await timeMedian(() => rawRun(rawDb), {
        minRuns: options.smoke ? 3 : 10,
        maxRuns: options.smoke ? 50 : 1000,
        budgetMs: options.smoke ? 100 : 1000,
      });
      const b = await bareServer.measure({
        connections: options.connections,
        durationS: options.smoke ? 0.3 : Math.min(options.durationS, 3),
        warmupS: options.smoke ? 0.1 : Math.min(options.warmupS, 1),
      });
      if (b.errors > 0) warn(`the baseline had ${b.errors} errors`);
      return { rawMs, baselineRps: b.rps };
    };

    // 4. The load scenarios: reads first, then the web figures, then posting (which adds messages).
    // Each is measured again (twice at most) when the machine slowed during it (pace.ts), and the
    // attempt the probe saw slow the least is kept; only the probe decides, never the figures. The
    // JSON keeps what the probe saw of the kept attempt and how many were taken.
    const whilePaced = async <T>(
      name: string,
      once: () => Promise<T | null>,
      errorsOf: (value: T) => number,
    ): Promise<{ value: T; errorsElsewhere: number; pace: Record<string, number | null> | null } | null> => {
      const attempts = options.smoke ? 1 : MAX_ATTEMPTS;
      const taken: { value: T; reading: PaceReading | null }[] = [];
      while (taken.length < attempts) {
        const mark = pace.mark();
        const value = await once();
        if (value === null) break;
        const reading = pace.since(mark);
        taken.push({ value, reading });
        if (!slowMachine(reading)) break;
        if (taken.length < attempts) log(`${name}: the machine was slow for ${percentOf(reading)} of it: again`);
      }
      const { index, errorsElsewhere } = keptAttempt(
        taken.map(({ value, reading }) => ({ reading, errors: errorsOf(value) })),
      );
      const kept = taken[index];
      if (kept === undefined) return null;
      const { reading } = kept;
      if (slowMachine(reading) && !options.smoke) {
        warn(
          `${name}: the machine was slow for ${percentOf(reading)} of the least slow of ${taken.length} attempts ` +
            `(its median sample ${reading?.pace.toFixed(2) ?? '-'}× the usual): its figures are low`,
        );
      }
      const paceOf =
        reading === null
          ? null
          : {
              median: round(reading.pace, 2),
              slow_share: round(reading.slow_share, 2),
              attempt: index + 1,
              attempts: taken.length,
            };
      return { value: kept.value, errorsElsewhere, pace: paceOf };
    };
    const paced = async (name: string, once: () => Promise<ScenarioResult | null>) => {
      const kept = await whilePaced(name, once, (result) => result.errors);
      if (kept === null) return;
      const result = kept.value;
      // An error of an attempt not kept still counts: the run fails on it as on any other.
      result.errors += kept.errorsElsewhere;
      if (kept.errorsElsewhere > 0) {
        result.details = { ...result.details, errors_in_other_attempts: kept.errorsElsewhere };
      }
      if (kept.pace !== null) result.details = { ...result.details, pace: kept.pace };
      results.push(result);
    };
    const measureOnce = async (scenario: LoadScenario): Promise<ScenarioResult | null> => {
      if (server === null) return null;
      const rawRun = rawByName[scenario.name];
      const limit = rawRun === undefined ? null : await limitNow(rawRun);
      await settle(server.url, pauseMs);
      log(`${scenario.name}…`);
      const load = await runLoad({
        url: server.url,
        requests: scenario.requests,
        connections: options.connections,
        durationS: options.durationS,
        warmupS: options.warmupS,
        pids: server.pids,
        // Smoke runs check the harness, not the figures: they do not wait long for slow connections.
        maxRampS: options.smoke ? 1 : 60,
      });
      const result: ScenarioResult = {
        ...emptyResult(scenario.name),
        rps: load.rps,
        p50_ms: load.p50_ms,
        p95_ms: load.p95_ms,
        p99_ms: load.p99_ms,
        raw_ms: limit?.rawMs ?? null,
        baseline_rps: limit?.baselineRps ?? null,
        rss_mb: load.rss_mb,
        cpu_us: load.cpu_us,
        errors: load.errors,
        requests: load.requests,
      };
      let errorsBy = load.badStatuses;
      // The same requests on one connection: the unloaded latency, to set beside the raw SQL.
      if (limit !== null) {
        await settle(server.url, pauseMs);
        const single = await runLoad({
          url: server.url,
          requests: scenario.requests,
          connections: 1,
          // Long enough for some 100 answers, so that its p95 is not the third slowest of 45 (the
          // most common word's search takes 35-55 ms): 2 to 10 s.
          durationS: options.smoke ? 0.3 : Math.min(options.durationS, Math.max(2, (150 * limit.rawMs) / 1000)),
          warmupS: options.smoke ? 0.1 : 0.2,
        });
        result.p50_1c_ms = single.p50_ms;
        result.p95_1c_ms = single.p95_ms;
        result.errors += single.errors;
        if (single.requests === 0) result.errors += 1;
        errorsBy = { ...errorsBy };
        for (const [code, n] of Object.entries(single.badStatuses)) errorsBy[code] = (errorsBy[code] ?? 0) + n;
      }
      const hits = searchHits.get(scenario.name);
      if (hits !== undefined) result.details = { hits };
      // The measured window opened late: some connection waited this long for its first answer.
      if (load.ready_s !== null && load.ready_s > options.warmupS) {
        result.details = { ...result.details, connections_ready_s: round(load.ready_s, 2) };
      }
      if (result.errors > 0) result.details = { ...result.details, bad_statuses: errorsBy };
      return result;
    };
    const measure = (scenario: LoadScenario) => paced(scenario.name, () => measureOnce(scenario));
    for (const scenario of reads) await measure(scenario);

    // The page read while half the connections search the most common word (issue 23, target 2):
    // the row has the page's figures; the searches' own are in its details.
    if (wanted('mixed')) {
      const mixed = mixedScenario(manifest);
      const url = server.url;
      const pids = server.pids;
      await paced(mixed.name, async () => {
        await settle(url, pauseMs);
        log('mixed…');
        const half = Math.max(1, Math.floor(options.connections / 2));
        const common = {
          url,
          durationS: options.durationS,
          warmupS: options.warmupS,
          maxRampS: options.smoke ? 1 : 60,
        };
        const [page, search] = await Promise.all([
          runLoad({ ...common, requests: mixed.page.requests, connections: half, pids }),
          runLoad({ ...common, requests: mixed.search.requests, connections: Math.max(1, options.connections - half) }),
        ]);
        const errors = page.errors + search.errors;
        return {
          ...emptyResult(mixed.name),
          rps: page.rps,
          p50_ms: page.p50_ms,
          p95_ms: page.p95_ms,
          p99_ms: page.p99_ms,
          rss_mb: page.rss_mb,
          // No cpu_us: the server's CPU then also goes to the searches beside the page.
          errors,
          requests: page.requests,
          details: {
            search_rps: round(search.rps, 1),
            search_p50_ms: round(search.p50_ms, 1),
            search_p99_ms: round(search.p99_ms, 1),
            ...(errors > 0 ? { bad_statuses: { page: page.badStatuses, search: search.badStatuses } } : {}),
          },
        };
      });
    }

    const measureWeb = (web as { measureWeb?: (ctx: RunContext) => Promise<unknown> }).measureWeb;
    if (measureWeb !== undefined && wanted('web')) {
      // Paced as the load scenarios are: the browser's five loads, again while the machine is slow.
      const url = server.url;
      const kept = await whilePaced(
        'web',
        async () => {
          try {
            return (await measureWeb({ url, manifest, options, repoRoot })) ?? null;
          } catch (error) {
            warn(`web: ${error instanceof Error ? error.message : String(error)}`);
            return null;
          }
        },
        () => 0,
      );
      if (kept !== null) {
        webResult =
          kept.pace !== null && typeof kept.value === 'object' ? { ...kept.value, pace: kept.pace } : kept.value;
      }
    }

    if (post !== undefined) await measure(post);

    // 5. Live events: 5 streams per user, then one post and the time until its streams have it.
    if (wanted('events')) {
      await settle(server.url, pauseMs);
      // The big group's members first: posting there reaches the most streams (50 members, 250
      // streams), then the first manifest users up to 1,000 users (5,000 streams) in all.
      const byId = new Map([...manifest.bigGroup.members, ...manifest.users].map((u) => [u.id, u]));
      const users = [...byId.values()].slice(0, options.streamUsers);
      if (users.length === 0) throw new Error('the manifest lists no users to open event streams');
      log(`events: opening ${users.length * 5} streams…`);
      const db = raw;
      const events = await runEvents({
        url: server.url,
        pids: server.pids,
        users,
        perUser: 5,
        timeoutMs: options.smoke ? 5000 : 10_000,
        settleMs: options.smoke ? 300 : 1000,
        pickGroup: async (userIds) => {
          const [top] = await db.all(
            `select group_id, count(*) as n from memberships where user_id in (?)
             group by group_id order by n desc, group_id limit 1`,
            [list(userIds)],
          );
          if (top === undefined) return null;
          const groupId = String(top.group_id);
          const members = await db.all(`select user_id from memberships where group_id = ?`, [groupId]);
          return { groupId, memberIds: members.map((m) => String(m.user_id)) };
        },
      });
      results.push({
        ...emptyResult('events'),
        rps: events.rps,
        p50_ms: events.p50_ms,
        p95_ms: events.p95_ms,
        p99_ms: events.p99_ms,
        rss_mb: events.rss_mb,
        errors: events.errors,
        requests: Number(events.details.delivered ?? 0),
        details: events.details,
      });
    }

    // 6. The baseline again (the machine may have changed pace): the ratios use the mean.
    if (!options.smoke && scenarios.length > 0) await baseline();
  } finally {
    if (server !== null && raw !== null) {
      // What the run posted (and any earlier run left behind) goes, so the next run sees the same data.
      try {
        const t0 = performance.now();
        await settle(server.url, pauseMs);
        const { found, deleted, failed } = await deleteBenchPosts(server.url, raw, manifest);
        await restoreAfterCleanup(manifest, found > 0);
        if (found > 0) postsDeleted = true;
        cleanup = { deleted, failed, seconds: round((performance.now() - t0) / 1000, 1) ?? 0 };
        if (found > 0) log(`deleted the ${deleted} messages the run posted (${cleanup.seconds} s)`);
        if (failed > 0) warn(`${failed} posted messages could not be deleted`);
      } catch (error) {
        warn(`cleanup: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    await raw?.close();
    await bare?.stop();
    await probe?.stop();
    if (server !== null) {
      const tail = server.tail();
      await server.stop();
      if (tail !== '') log(`the server's last log lines (LOG_LEVEL=warn):\n${tail}`);
    }
    if (postsDeleted) {
      const t0 = performance.now();
      try {
        if (compactSearchIndex(manifest)) {
          log(`merged the search index again (${round((performance.now() - t0) / 1000, 1)} s)`);
        }
      } catch (error) {
        warn(`merging the search index: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  const baselineRps = baselineRuns.length > 0 ? baselineRuns.reduce((a, b) => a + b, 0) / baselineRuns.length : null;
  const resultsDir = path.join(repoRoot, 'bench', 'results');
  fillRatios(results, baselineRps, options.db === 'postgres' ? sqliteRpsOf(resultsDir, options.scale) : null);

  process.stdout.write(
    `\nKith bench: ${options.db}, scale ${manifest.scale}, ${options.connections} connections, ${options.durationS} s per scenario` +
      ` (${os.cpus().length} CPUs, Node ${process.version}); idle RSS ${rssIdle === null ? '-' : rssIdle.toFixed(0)} MB\n\n` +
      `${formatTable(results)}\n\n`,
  );
  const events = results.find((r) => r.name === 'events');
  if (events?.details !== undefined) {
    const d = events.details;
    process.stdout.write(
      `events: ${String(d.streams_open)} streams open (${String(d.streams_failed)} failed); the post reached ` +
        `${String(d.delivered)}/${String(d.receivers)} streams of its group's members, all within ` +
        `${typeof d.all_delivered_ms === 'number' ? `${d.all_delivered_ms.toFixed(0)} ms` : '- (not all)'}\n`,
    );
  }
  const webFigures = webResult as WebMetrics | null;
  if (webFigures !== null) {
    process.stdout.write(
      `web: first screen ${webFigures.first_screen_gz_kb} KB of JS and CSS gzipped; the big group's feed in ` +
        `${webFigures.feed_api_calls} API calls; first card painted ${webFigures.feed_paint_ms} ms after navigation` +
        ` (median of ${webFigures.feed_paint_each_ms.join(', ')})\n`,
    );
  }
  process.stdout.write(`data: generated in ${String(manifest.seedSeconds.total)} s (bench/seed.ts)\n`);
  for (const w of warnings) process.stdout.write(`warning: ${w}\n`);

  const output = {
    scale: options.scale,
    db: options.db,
    startedAt,
    machine: { cpus: os.cpus().length, totalMemGb: round(os.totalmem() / 1024 ** 3, 1), node: process.version },
    connections: options.connections,
    durationS: options.durationS,
    warmupS: options.warmupS,
    smoke: options.smoke,
    processes: options.processes,
    rss_idle_mb: round(rssIdle, 1),
    baseline_rps: round(baselineRps, 0),
    baseline_runs: baselineRuns.map((v) => round(v, 0)),
    data: { seed: manifest.seed, counts: manifest.counts, seed_seconds: manifest.seedSeconds },
    scenarios: results.map((r) => ({
      name: r.name,
      rps: round(r.rps, 1),
      p50_ms: round(r.p50_ms, 3),
      p95_ms: round(r.p95_ms, 3),
      p99_ms: round(r.p99_ms, 3),
      p50_1c_ms: round(r.p50_1c_ms, 3),
      p95_1c_ms: round(r.p95_1c_ms, 3),
      baseline_rps: round(r.baseline_rps, 0),
      ratio: round(r.ratio, 3),
      limit_rps: round(r.limit_rps, 0),
      limit_ratio: round(r.limit_ratio, 3),
      of_sqlite: round(r.of_sqlite, 3),
      raw_ms: round(r.raw_ms, 3),
      raw_ratio: round(r.raw_ratio, 2),
      rss_mb: round(r.rss_mb, 1),
      cpu_us: round(r.cpu_us ?? null, 0),
      errors: r.errors,
      requests: r.requests,
      ...(r.details !== undefined ? { details: r.details } : {}),
    })),
    cleanup,
    warnings,
    web: webResult,
  };
  mkdirSync(resultsDir, { recursive: true });
  const outFile = path.join(resultsDir, options.smoke ? 'smoke.json' : 'latest.json');
  const json = `${JSON.stringify(output, null, 2)}\n`;
  writeFileSync(outFile, json);
  // Whole runs are also kept per engine and scale: a PostgreSQL run sets itself beside SQLite's.
  if (!options.smoke && options.only === null && options.processes === null) {
    writeFileSync(path.join(resultsDir, `${options.db}-${options.scale}.json`), json);
  }
  process.stdout.write(`\nwrote ${path.relative(process.cwd(), outFile)}\n`);

  // The smoke run guards the harness, so any error fails it. A measuring run reports errors in the
  // table (a scenario too slow for the client's timeout is a finding, not a broken run) and fails
  // only when a scenario got no answer at all.
  const silent = results.filter((r) => r.requests === 0).map((r) => r.name);
  const failed = options.smoke ? results.filter((r) => r.errors > 0 || r.requests === 0).map((r) => r.name) : silent;
  if (failed.length > 0) {
    process.stderr.write(`\n[bench] FAILED: ${options.smoke ? 'errors or ' : ''}no answers in ${failed.join(', ')}\n`);
    return 1;
  }
  if (results.length === 0) {
    process.stderr.write('\n[bench] FAILED: no scenario ran\n');
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`[bench] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
