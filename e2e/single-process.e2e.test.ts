// One server process per set of data (issue 19, until scale-out mode shares live events, jobs and
// throttles): the real built server, started twice on the same SQLite folder and on the same
// PostgreSQL database. The second start is refused with a message; a first one killed with
// SIGKILL leaves no stale lock behind (the engines release it), so the next start succeeds.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dropDatabase, urlForDatabase, withAdmin } from '../server/test/postgres.js';
import { freePort } from './harness.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '..');
const SERVER_MAIN = path.join(REPO_ROOT, 'server', 'dist', 'main.js');
const children = new Set<ChildProcess>();

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

interface Server {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts `server/dist/main.js` on a free port with the given data settings. */
async function serve(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [SERVER_MAIN], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      LOG_LEVEL: 'warn',
      SECRET_KEY: randomBytes(32).toString('hex'),
      SMTP_URL: '',
      BASE_PATH: '',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, url, stderr: () => stderr, exited };
}

/** Waits until the server answers its liveness probe (or fails if it exits first). */
async function ready(server: Server): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`the server exited: ${server.stderr()}`);
    try {
      if ((await fetch(`${server.url}/api/health/ready`, { signal: AbortSignal.timeout(2_000) })).status === 200)
        return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`no answer from ${server.url}: ${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function refusesASecondServerThenSurvivesAKill(env: Record<string, string>): Promise<void> {
  const first = await serve(env);
  await ready(first);

  const second = await serve(env);
  expect(await second.exited).toBe(1);
  expect(second.stderr()).toMatch(/Another Kith server is running on/);
  // The first one never noticed.
  expect((await fetch(`${first.url}/api/health/ready`)).status).toBe(200);

  first.child.kill('SIGKILL');
  await first.exited;
  const third = await serve(env);
  await ready(third);
  third.child.kill('SIGTERM');
  expect(await third.exited).toBe(0);
}

describe('one server per set of data', () => {
  it('on SQLite: a second server on the same folder is refused; a killed one leaves no lock', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'kith-single-'));
    try {
      await refusesASecondServerThenSurvivesAKill({ DATA_DIR: dataDir, DATABASE_URL: '' });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('on PostgreSQL: a second server on the same database is refused; a killed one leaves no lock', async () => {
    const name = `kith_test_${process.pid}_single_${randomBytes(4).toString('hex')}`;
    const dataDir = await mkdtemp(path.join(tmpdir(), 'kith-single-'));
    await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
    try {
      await refusesASecondServerThenSurvivesAKill({ DATA_DIR: dataDir, DATABASE_URL: urlForDatabase(name) });
    } finally {
      await withAdmin((client) => dropDatabase(client, name));
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
