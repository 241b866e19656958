import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Manifest } from './types.ts';

/** A free TCP port on the loopback interface (asked from the kernel, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Resident memory of a process in MB, from `/proc/<pid>/status` (VmRSS); null when unreadable. */
export function rssMb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match?.[1] === undefined ? null : Number(match[1]) / 1024;
  } catch {
    return null;
  }
}

/** Samples a process's RSS every `everyMs` while running; `stop()` returns the peak in MB. */
export class RssSampler {
  private peak = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly pid: number;

  constructor(pid: number, everyMs = 150) {
    this.pid = pid;
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    const value = rssMb(this.pid);
    if (value !== null && value > this.peak) this.peak = value;
  }

  stop(): number | null {
    clearInterval(this.timer);
    this.sample();
    return this.peak > 0 ? this.peak : null;
  }
}

/** Child processes still to kill when the runner exits for any reason (a crash, Ctrl-C). */
const children = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n[bench] ${signal}: stopping the server\n`);
      process.exit(130);
    });
  }
}

/** Spawns a child that dies with the runner, keeping its last output lines for error messages. */
export function spawnTracked(
  args: string[],
  env: NodeJS.ProcessEnv,
  label: string,
): { child: ChildProcess; tail: () => string } {
  installExitHook();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      lines.push(line);
      if (lines.length > 40) lines.shift();
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, tail: () => lines.map((l) => `  [${label}] ${l}`).join('\n') };
}

/** Stops a child with SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export interface RunningServer {
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** The last lines the server printed (warnings, errors). */
  tail: () => string;
  stop: () => Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The Node flags of `npm run serve` (the root package.json), so the benchmark measures the server as
 * it is run: `node <flags> server/dist/main.js`.
 */
function serveFlags(repoRoot: string): string[] {
  const { scripts } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const match = /^node((?: --[^\s]+)*) server\/dist\/main\.js$/.exec(scripts.serve ?? '');
  if (match === null) throw new Error(`package.json "serve" is not "node [flags] server/dist/main.js"`);
  return (match[1] ?? '').split(' ').filter((flag) => flag !== '');
}

/**
 * Starts `node server/dist/main.js` on the manifest's data, on loopback and a free port, and waits
 * until `GET /api/info` answers 200.
 */
export async function startServer(
  repoRoot: string,
  manifest: Manifest,
  cpuProfDir: string | null = null,
): Promise<RunningServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: manifest.dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: url,
    LOG_LEVEL: 'warn',
  };
  // SQLite lives at <DATA_DIR>/kith.db unless the manifest names another file.
  if (manifest.databaseUrl.startsWith('postgres')) env.DATABASE_URL = manifest.databaseUrl;
  else if (manifest.databaseUrl.startsWith('sqlite:')) env.DATABASE_URL = manifest.databaseUrl;
  else delete env.DATABASE_URL;

  const main = path.join(repoRoot, 'server', 'dist', 'main.js');
  const flags = serveFlags(repoRoot);
  // A profile is written when the process exits, which it does on the SIGTERM of `stop`.
  const profile = cpuProfDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(cpuProfDir)}`];
  const { child, tail } = spawnTracked([...flags, ...profile, main], env, 'server');
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the server process');
  const stop = () => stopChild(child);

  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}:\n${tail()}`);
    try {
      const res = await fetch(`${url}/api/info`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the server did not answer GET /api/info within 120 s:\n${tail()}`);
    }
    await sleep(100);
  }
  return { url, port, pid, child, tail, stop };
}
