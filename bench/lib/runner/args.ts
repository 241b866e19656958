import { parseArgs } from 'node:util';
import type { DbKind, RunOptions, Scale } from './types.ts';
import { isScaleName } from '../scale.ts';

export const USAGE = `Usage: node bench/run.ts --scale small|full|x10 [--db sqlite|postgres] [--duration S] [--connections N] [--smoke]
       [--only name,name] [--manifest path/to/manifest.json] [--cpu-prof DIR] [--processes N]

  --scale        which generated data set: bench/data/<db>-<scale>/manifest.json (default small)
  --db           sqlite (default) or postgres
  --duration     measured seconds per scenario (default: full 10, small 5, smoke 1)
  --connections  concurrent connections of every scenario and of the baseline (default 50)
  --smoke        a quick pass that checks the harness: 1 s per scenario, 50 event streams;
                 exits non-zero when a scenario has errors or no answers; writes results/smoke.json
  --only         run only these scenarios (comma-separated names; search-* takes every name starting
                 with search-)
  --manifest     another manifest than the one of --scale and --db
  --cpu-prof     run the server with V8's --cpu-prof; its .cpuprofile lands in DIR when it stops
                 (open it in Chrome DevTools, Performance tab)
  --processes    scale-out mode (needs --db postgres): N web processes and a worker on PostgreSQL and
                 the local Redis, behind nginx configured as docs/scale-out.md says (default: one
                 process, no balancer)`;

export interface ParsedArgs extends RunOptions {
  manifestPath: string | null;
}

/** Reads the command line; throws with a message (and the usage) on anything it does not know. */
export function readArgs(argv: string[]): ParsedArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      scale: { type: 'string', default: 'small' },
      db: { type: 'string', default: 'sqlite' },
      duration: { type: 'string' },
      connections: { type: 'string', default: '50' },
      smoke: { type: 'boolean', default: false },
      only: { type: 'string' },
      manifest: { type: 'string' },
      'cpu-prof': { type: 'string' },
      processes: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) throw new Error(USAGE);
  const scale = values.scale;
  if (!isScaleName(scale)) throw new Error(`--scale must be small, full or x10\n\n${USAGE}`);
  const db = values.db;
  if (db !== 'sqlite' && db !== 'postgres') throw new Error(`--db must be sqlite or postgres\n\n${USAGE}`);
  const connections = Number(values.connections);
  if (!Number.isInteger(connections) || connections < 1 || connections > 10_000) {
    throw new Error(`--connections must be a whole number from 1 to 10000\n\n${USAGE}`);
  }
  const smoke = values.smoke;
  const defaults = smoke ? { d: 1, w: 0.5 } : scale !== 'small' ? { d: 10, w: 3 } : { d: 5, w: 2 };
  let durationS = defaults.d;
  if (values.duration !== undefined) {
    durationS = Number(values.duration);
    if (!Number.isFinite(durationS) || durationS <= 0 || durationS > 3600) {
      throw new Error(`--duration must be a number of seconds, at most 3600\n\n${USAGE}`);
    }
  }
  const processes = values.processes === undefined ? null : Number(values.processes);
  if (processes !== null && (!Number.isInteger(processes) || processes < 1 || processes > 16)) {
    throw new Error(`--processes must be a whole number from 1 to 16\n\n${USAGE}`);
  }
  if (processes !== null && db !== 'postgres') throw new Error(`--processes needs --db postgres\n\n${USAGE}`);
  const only =
    values.only === undefined
      ? null
      : values.only
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name !== '');
  return {
    scale: scale satisfies Scale,
    db: db satisfies DbKind,
    durationS,
    warmupS: defaults.w,
    connections,
    smoke,
    // 5 streams per user: 1000 users give the 5,000 streams of the target; smoke opens 50.
    streamUsers: smoke ? 10 : 1000,
    only,
    manifestPath: values.manifest ?? null,
    cpuProfDir: values['cpu-prof'] ?? null,
    processes,
  };
}

/**
 * The scenarios `--only` selects among `known`: a name, or a prefix ending in `*`. A name that selects
 * nothing stops the run before it starts: a typo would otherwise measure nothing and say so only in
 * an empty table.
 */
export function selectScenarios(only: readonly string[], known: readonly string[]): Set<string> {
  const selected = new Set<string>();
  for (const name of only) {
    const matches = name.endsWith('*')
      ? known.filter((k) => k.startsWith(name.slice(0, -1)))
      : known.filter((k) => k === name);
    if (matches.length === 0) {
      throw new Error(`--only: no scenario is called ${name}. The scenarios are ${known.join(', ')}`);
    }
    for (const match of matches) selected.add(match);
  }
  return selected;
}
