import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { serveCommand } from '../../../scripts/serve-command.mjs';
import type { Manifest } from './types.ts';

export { serveCommand };

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

/** Resident memory of processes in MB, from `/proc/<pid>/status` (VmRSS); null when none is readable. */
export function rssMb(pids: readonly number[]): number | null {
  // The sum over the processes (several behind a balancer with --processes); null if none answers.
  let total: number | null = null;
  for (const pid of pids) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
      if (match?.[1] !== undefined) total = (total ?? 0) + Number(match[1]) / 1024;
    } catch {
      // gone: counts nothing
    }
  }
  return total;
}

/**
 * CPU time the processes have used so far, user and system, all threads (ms), from
 * `/proc/<pid>/stat`; null when none is readable. Divided by the answers of a window it gives the
 * server's cost per request, which, unlike rps, hardly moves when other programs load the machine.
 */
export function cpuMs(pids: readonly number[]): number | null {
  let total: number | null = null;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      if (Number.isFinite(ticks)) total = (total ?? 0) + (ticks * 1000) / CLOCK_TICKS_PER_S;
    } catch {
      // gone: counts nothing
    }
  }
  return total;
}

/** `getconf CLK_TCK`: 100 on every Linux Node runs on. */
const CLOCK_TICKS_PER_S = 100;

/** Samples the processes' summed RSS every `everyMs` while running; `stop()` returns the peak in MB. */
export class RssSampler {
  private peak = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly pids: readonly number[];

  constructor(pids: readonly number[], everyMs = 150) {
    this.pids = pids;
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    const value = rssMb(this.pids);
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

/**
 * Spawns a child (Node by default) that dies with the runner, keeping its last output lines for
 * error messages.
 */
export function spawnTracked(
  args: string[],
  env: NodeJS.ProcessEnv,
  label: string,
  command = process.execPath,
): { child: ChildProcess; tail: () => string } {
  installExitHook();
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
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
  /** The processes that serve (one, or the web processes and the worker of --processes). */
  pids: number[];
  child: ChildProcess;
  /** The last lines the server printed (warnings, errors). */
  tail: () => string;
  stop: () => Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The environment of a server process on the manifest's data, listening on loopback at `port`. */
export function serverEnv(repoRoot: string, manifest: Manifest, publicUrl: string, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...serveCommand(repoRoot).env,
    DATA_DIR: manifest.dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: publicUrl,
    LOG_LEVEL: 'warn',
  };
  // SQLite lives at <DATA_DIR>/kith.db unless the manifest names another file.
  if (manifest.databaseUrl.startsWith('postgres') || manifest.databaseUrl.startsWith('sqlite:')) {
    env.DATABASE_URL = manifest.databaseUrl;
  } else {
    delete env.DATABASE_URL;
  }
  return env;
}

/** `<flags of npm run serve> [--cpu-prof …] server/dist/main.js`. */
export function serverArgs(repoRoot: string, cpuProfDir: string | null): string[] {
  const main = path.join(repoRoot, 'server', 'dist', 'main.js');
  // A profile is written when the process exits, which it does on the SIGTERM of `stop`.
  const profile = cpuProfDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(cpuProfDir)}`];
  return [...serveCommand(repoRoot).flags, ...profile, main];
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
  const env = serverEnv(repoRoot, manifest, url, port);
  const { child, tail } = spawnTracked(serverArgs(repoRoot, cpuProfDir), env, 'server');
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the server process');
  const stop = () => stopChild(child);

  await whenAnswering(url, child, tail, stop);
  return { url, port, pids: [pid], child, tail, stop };
}

const STARTUP_WAIT_MS = 20 * 60_000;

/**
 * Waits until `GET <url>/api/info` answers 200 (twenty minutes at most: the server migrates before
 * it listens, and a migration of the full data can take minutes, 0024 about four on a busy
 * machine); on failure stops what was started (`stop`) and throws with the child's last lines. A
 * process that exits ends the wait at once.
 */
export async function whenAnswering(
  url: string,
  child: ChildProcess,
  tail: () => string,
  stop: () => Promise<void>,
): Promise<void> {
  const deadline = Date.now() + STARTUP_WAIT_MS;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`a server process exited with code ${child.exitCode}:\n${tail()}`);
    }
    try {
      const res = await fetch(`${url}/api/info`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${url} did not answer GET /api/info within ${STARTUP_WAIT_MS / 60_000} minutes:\n${tail()}`);
    }
    await sleep(100);
  }
}
