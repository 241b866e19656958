import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_DIALECT, type TestApp } from '../../test/harness.js';
import { BOUNDARY, multipart } from '../../test/uploads.js';
import { withFileWorkspace } from './workspace.js';
import { freePort } from '../../test/ports.js';

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const SERVER_MAIN = path.join(repoRoot, 'server', 'dist', 'main.js');

/** One process of the machine, read from /proc. */
interface ProcessInfo {
  pid: number;
  ppid: number;
  argv: string[];
}

/** The ffmpeg processes alive now with an argument under `dataDir`'s work folder (this test's upload). */
async function conversions(dataDir: string): Promise<ProcessInfo[]> {
  const work = path.join(dataDir, 'work') + path.sep;
  const found: ProcessInfo[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      // "pid (name) state ppid …"; the name may hold spaces and parentheses, so read after the last ")".
      const close = stat.lastIndexOf(')');
      const [state, ppid] = stat.slice(close + 2).split(' ');
      // Zombies (exited, not yet reaped) do not count; the command line is read only for ffmpeg.
      if (state === 'Z' || state === 'X' || stat.slice(stat.indexOf('(') + 1, close) !== 'ffmpeg') continue;
      const argv = (await readFile(`/proc/${name}/cmdline`, 'utf8')).split('\0').slice(0, -1);
      if (argv.some((arg) => arg.startsWith(work))) found.push({ pid: Number(name), ppid: Number(ppid), argv });
    } catch {
      // Ended while being read.
    }
  }
  return found;
}

/** The transcodes (not the poster's single frame) among `list` whose parent is `pid`, if any. */
function transcodesUnder(list: ProcessInfo[], pid: number): ProcessInfo[] | undefined {
  const mine = list.filter((p) => p.ppid === pid && p.argv.includes('libx264'));
  return mine.length > 0 ? mine : undefined;
}

/** Polls `check` until it gives a value; fails after `limitMs` saying what was awaited. */
async function waitFor<T>(what: string, check: () => Promise<T | undefined>, limitMs: number): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${limitMs} ms waiting for ${what}`);
    await delay(25);
  }
}

interface Server {
  child: ChildProcess;
  pid: number;
  url: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: ChildProcess[] = [];

/** Starts the built server on `dataDir` and resolves once it answers. */
async function startServer(t: TestApp): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [SERVER_MAIN], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      DATA_DIR: t.config.dataDir,
      SECRET_KEY: t.config.secretKey,
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      SMTP_URL: '',
      BASE_PATH: '',
    },
  });
  started.push(child);
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await waitFor(
    'the server to answer',
    async () => {
      if (child.exitCode !== null) throw new Error(`the server exited:\n${output}`);
      try {
        return (await fetch(`${url}/api/info`)).ok ? true : undefined;
      } catch {
        return undefined;
      }
    },
    30_000,
  );
  return { child, pid: child.pid ?? 0, url, output: () => output, exited };
}

/**
 * Records every conversion of the file seen, with its parent, and the most alive at once: in the
 * background until stopped, and on each `scan()` the test makes while it waits for one.
 */
function watchConversions(dataDir: string) {
  const seen = new Map<number, ProcessInfo>();
  let most = 0;
  let running = true;
  const scan = async () => {
    const now = await conversions(dataDir);
    most = Math.max(most, now.length);
    // Kept as first seen: an orphan's parent changes once its server is gone.
    for (const p of now) if (!seen.has(p.pid)) seen.set(p.pid, p);
    return now;
  };
  const done = (async () => {
    while (running) {
      await scan();
      await delay(50);
    }
  })();
  return {
    scan,
    get most() {
      return most;
    },
    /** The transcodes started by the server `pid`. */
    transcodesBy(pid: number): ProcessInfo[] {
      return transcodesUnder([...seen.values()], pid) ?? [];
    },
    async stop() {
      running = false;
      await done;
    },
  };
}

// Mostly a process test of the built server. The orphan handling does not depend on the database
// engine and a real conversion costs seconds, so it runs once, on SQLite (the embedded mode).
describe.skipIf(TEST_DIALECT === 'postgres')('conversions of a server that died', () => {
  let t: TestApp;
  let clipDir = '';
  let clip: Buffer;

  beforeAll(async () => {
    t = await createTestApp();
    clipDir = mkdtempSync(path.join(tmpdir(), 'kith-orphans-'));
    if (!existsSync(SERVER_MAIN)) throw new Error(`${SERVER_MAIN} is missing: run \`npm run build:server\` first`);
    // 30 s of 720p MPEG-4 (not H.264: transcoded, 750 frames for libx264, several seconds of work
    // even on a fast idle machine), made cheaply by repeating a 2 s piece without re-encoding it.
    const piece = path.join(clipDir, 'piece.mkv');
    const long = path.join(clipDir, 'long.mkv');
    const ffmpeg = ['-hide_banner', '-v', 'error', '-y', '-nostdin'];
    execFileSync(
      'ffmpeg',
      [...ffmpeg, '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=25', '-t', '2'].concat([
        '-c:v',
        'mpeg4',
        '-q:v',
        '5',
        piece,
      ]),
    );
    execFileSync('ffmpeg', [...ffmpeg, '-stream_loop', '14', '-i', piece, '-c', 'copy', long]);
    clip = readFileSync(long);
  });

  afterAll(async () => {
    for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (clipDir !== '') rmSync(clipDir, { recursive: true, force: true });
    // Whatever a failed run left behind must not keep converting after the test.
    for (const p of await conversions(t.config.dataDir)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await t.close();
  });

  it(
    'kills ffmpeg with the server, and the restarted server converts the file once',
    { timeout: 120_000 },
    async () => {
      const dataDir = t.config.dataDir;
      const watch = watchConversions(dataDir);
      try {
        // First start: an account through the setup link, and the upload.
        const first = await startServer(t);
        const invitation = await waitFor(
          'the setup link',
          () => Promise.resolve(/\/invitation\/([0-9a-f-]{36})/.exec(first.output())?.[1]),
          10_000,
        );
        const signup = await fetch(`${first.url}/api/signup`, {
          method: 'POST',
          body: JSON.stringify({ login: 'first@example.org', password: 'password123', invite_key: invitation }),
        });
        expect(signup.status).toBe(200);
        const { api_key: key } = (await signup.json()) as { api_key: string };
        const body = multipart([{ name: 'file', filename: 'long.mkv', type: 'application/octet-stream', data: clip }]);
        const upload = await fetch(`${first.url}/api/files`, {
          method: 'POST',
          headers: {
            'x-auth-token': key,
            'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
          },
          body,
        });
        expect(upload.status).toBe(201);
        const { id } = (await upload.json()) as { id: string };
        const job = () =>
          t.ctx.db.kysely
            .selectFrom('jobs')
            .select(['status', 'attempts'])
            .where('payload', 'like', `%${id}%`)
            .executeTakeFirstOrThrow();

        // A normal stop (SIGTERM) during the conversion: ffmpeg is stopped and the job queued again.
        await waitFor(
          'ffmpeg under the first server',
          async () => transcodesUnder(await watch.scan(), first.pid),
          30_000,
        );
        first.child.kill('SIGTERM');
        expect(await first.exited).toEqual({ code: 0, signal: null });
        await waitFor('no conversion left', async () => ((await watch.scan()).length === 0 ? true : undefined), 5_000);
        expect(await job()).toMatchObject({ status: 'queued', attempts: 0 });

        // The second server takes the job up at once; kill -9 it in the middle of the conversion.
        const second = await startServer(t);
        await waitFor(
          'ffmpeg under the second server',
          async () => transcodesUnder(await watch.scan(), second.pid),
          30_000,
        );
        second.child.kill('SIGKILL');
        expect(await second.exited).toEqual({ code: null, signal: 'SIGKILL' });
        // Its ffmpeg dies with it: the kernel kills it as the server dies, so the limit is generous
        // for that, yet shorter than the seconds an orphaned ffmpeg would convert on.
        await waitFor(
          'the orphaned ffmpeg to end',
          async () => ((await watch.scan()).length === 0 ? true : undefined),
          4_000,
        );
        expect(await job()).toMatchObject({ status: 'running', attempts: 1 });
        // The dead runner's lease would expire after a minute; expire it now rather than wait.
        await t.ctx.db.kysely
          .updateTable('jobs')
          .set({ locked_until: 0 })
          .where('payload', 'like', `%${id}%`)
          .execute();

        // The third server converts the file, once.
        const third = await startServer(t);
        const ready = await waitFor(
          'the file to be ready',
          async () => {
            const res = await fetch(`${third.url}/api/files/${id}`, { headers: { 'x-auth-token': key } });
            const file = (await res.json()) as { status: string; type: string; error: string | null };
            return file.status === 'ready' ? file : undefined;
          },
          90_000,
        );
        expect(ready).toMatchObject({ status: 'ready', type: 'video/mp4', error: null });
        // The job ends after the file (the poster is taken, the work folder removed).
        await waitFor('the job to end', async () => ((await job()).status === 'running' ? undefined : true), 30_000);
        expect(await job()).toMatchObject({ status: 'done', attempts: 2 });
        third.child.kill('SIGTERM');
        expect(await third.exited).toEqual({ code: 0, signal: null });

        await watch.stop();
        // Never two conversions of the file at once, and one transcode started by each server.
        expect(watch.most).toBe(1);
        expect(watch.transcodesBy(first.pid)).toHaveLength(1);
        expect(watch.transcodesBy(second.pid)).toHaveLength(1);
        expect(watch.transcodesBy(third.pid)).toHaveLength(1);
      } finally {
        await watch.stop();
      }
    },
  );

  it("stops a tool left working in the file's work folder before the next run starts", async () => {
    const fileId = randomUUID();
    const dir = path.join(t.config.dataDir, 'work', `file-${fileId}`);
    mkdirSync(dir, { recursive: true });
    // What a run would leave if the parent-death signal missed it: an ffmpeg working in the folder
    // (reading its source in real time, so it runs on for minutes).
    const leftover = spawn(
      'ffmpeg',
      [
        '-hide_banner',
        '-nostdin',
        '-v',
        'error',
        '-re',
        '-f',
        'lavfi',
        '-i',
        'testsrc=size=64x64:rate=5',
        '-t',
        '600',
      ].concat(['-f', 'matroska', '-y', path.join(dir, 'out.mkv')]),
      { stdio: 'ignore' },
    );
    const ended = new Promise<NodeJS.Signals | null>((resolve) =>
      leftover.once('exit', (_code, signal) => resolve(signal)),
    );
    await waitFor(
      'the leftover ffmpeg to run',
      async () => ((await conversions(t.config.dataDir)).some((p) => p.pid === leftover.pid) ? true : undefined),
      10_000,
    );

    let seenInside: ProcessInfo[] = [];
    let filesInside: string[] = [];
    await withFileWorkspace(t.ctx, fileId, async (inside) => {
      expect(inside).toBe(dir);
      seenInside = await conversions(t.config.dataDir);
      filesInside = readdirSync(inside);
    });
    expect(seenInside).toEqual([]);
    expect(filesInside).toEqual([]);
    expect(await ended).toBe('SIGKILL');
    expect(existsSync(dir)).toBe(false);
  });

  it('lets two runs of the same file in one process take turns instead of stopping each other', async () => {
    const fileId = randomUUID();
    const order: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = withFileWorkspace(t.ctx, fileId, async () => {
      order.push('first starts');
      await held;
      order.push('first ends');
    });
    const second = withFileWorkspace(t.ctx, fileId, () => {
      order.push('second starts');
      return Promise.resolve();
    });
    await waitFor('the first run to start', () => Promise.resolve(order.length > 0 ? true : undefined), 10_000);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first starts', 'first ends', 'second starts']);
  });
});
