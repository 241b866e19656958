/**
 * `node bench/profile-summary.ts FILE.cpuprofile [--top N] [--filter TEXT]`
 *
 * Sums a V8 CPU profile (what `bench/run.ts --cpu-prof DIR` writes) by function and by file, so
 * that the server's cost per request can be read without opening DevTools:
 *
 * - **self**: the time sampled while the function itself was on top of the stack;
 * - **total**: the time sampled while it was anywhere on the stack, counted once per sample even
 *   when it recurses, so a function's total never exceeds the profile's busy time.
 *
 * Shares are of the busy time (idle, program and garbage collection are shown apart). Files are
 * shortened to the package (`node_modules/fastify/…` → `fastify`) or the path under the repository;
 * `--filter TEXT` keeps only the functions whose name or file contains TEXT.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Sampled time of one function or file: its own, and with what it called. */
interface Row {
  self: number;
  total: number;
}

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** `file:///…/node_modules/a/b.js` → `a`; a path of the repository → relative to its root. */
export function shortFile(url: string, root: string): string {
  if (url === '') return '(native)';
  const file = url.startsWith('file://') ? new URL(url).pathname : url;
  const modules = file.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = file.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') === true ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? file);
  }
  return file.startsWith(root) ? path.relative(root, file) : file;
}

/** Self and total time (µs) by function and by file, and the busy and special totals. */
export function summarize(profile: CpuProfile, root: string) {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const names = new Map<number, { fn: string; file: string }>();
  for (const node of profile.nodes) {
    const file = shortFile(node.callFrame.url, root);
    const name = node.callFrame.functionName === '' ? '(anonymous)' : node.callFrame.functionName;
    names.set(node.id, { fn: `${name} ${file}:${node.callFrame.lineNumber + 1}`, file });
  }
  const functions = new Map<string, Row>();
  const files = new Map<string, Row>();
  const special = new Map<string, number>();
  let busy = 0;
  const add = (map: Map<string, Row>, key: string, field: keyof Row, us: number) => {
    const row = map.get(key) ?? { self: 0, total: 0 };
    row[field] += us;
    map.set(key, row);
  };
  profile.samples.forEach((id, index) => {
    const us = profile.timeDeltas[index] ?? 0;
    const node = byId.get(id);
    if (node === undefined) return;
    if (SPECIAL.has(node.callFrame.functionName)) {
      special.set(node.callFrame.functionName, (special.get(node.callFrame.functionName) ?? 0) + us);
      if (node.callFrame.functionName !== '(idle)') busy += us;
      return;
    }
    busy += us;
    const own = names.get(id);
    if (own === undefined) return;
    add(functions, own.fn, 'self', us);
    add(files, own.file, 'self', us);
    // Each function and file once per sample, however deep it recurses.
    const seenFn = new Set<string>();
    const seenFile = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = names.get(at);
      if (frame === undefined || SPECIAL.has(byId.get(at)?.callFrame.functionName ?? '')) continue;
      if (!seenFn.has(frame.fn)) {
        seenFn.add(frame.fn);
        add(functions, frame.fn, 'total', us);
      }
      if (!seenFile.has(frame.file)) {
        seenFile.add(frame.file);
        add(files, frame.file, 'total', us);
      }
    }
  });
  return { functions, files, special, busy };
}

function table(title: string, rows: Map<string, Row>, busy: number, top: number, sortBy: keyof Row, filter: string) {
  const lines = [...rows.entries()]
    .filter(([key]) => filter === '' || key.includes(filter))
    .sort((a, b) => b[1][sortBy] - a[1][sortBy])
    .slice(0, top)
    .map(([key, row]) => {
      const pct = (us: number) => `${((100 * us) / busy).toFixed(1)} %`.padStart(7);
      return `${pct(row.self)} ${pct(row.total)}  ${key}`;
    });
  return [`${title} (self, total; of busy time)`, ...lines].join('\n');
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const file = args.find((arg) => !arg.startsWith('--') && !/^\d+$/.test(arg));
  const option = (name: string) => {
    const index = args.indexOf(name);
    return index >= 0 ? args[index + 1] : undefined;
  };
  if (file === undefined) {
    process.stderr.write('usage: node bench/profile-summary.ts FILE.cpuprofile [--top N] [--filter TEXT]\n');
    process.exit(2);
  }
  const top = Number(option('--top') ?? 40);
  const filter = option('--filter') ?? '';
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const { functions, files, special, busy } = summarize(profile, path.resolve(import.meta.dirname, '..'));
  const ms = (us: number) => `${(us / 1000).toFixed(0)} ms`;
  const out = [
    `busy ${ms(busy)}; ${[...special.entries()].map(([name, us]) => `${name} ${ms(us)}`).join(', ')}`,
    '',
    table('by file', files, busy, top, 'self', filter),
    '',
    table('by function, self', functions, busy, top, 'self', filter),
    '',
    table('by function, total', functions, busy, top, 'total', filter),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}
