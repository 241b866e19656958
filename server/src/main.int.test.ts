import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness.js';
import { freePort } from '../test/ports.js';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

/** Waits until the process has printed something matching `pattern` on stdout. */
function waitForOutput(
  child: ChildProcessWithoutNullStreams,
  pattern: RegExp,
  timeoutMs = 15_000,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${String(pattern)}; got:\n${seen}`)),
      timeoutMs,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = seen.match(pattern);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.on('exit', (code) => reject(new Error(`exited with ${String(code)} before ${String(pattern)}:\n${seen}`)));
  });
}

describe('the server process (npm start)', () => {
  // The app is only used for a fresh, empty database of the engine under test.
  let t: TestApp;
  let child: ChildProcessWithoutNullStreams;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [path.join(repoRoot, 'server', 'dist', 'main.js')], {
      cwd: repoRoot,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: t.config.dataDir,
        SECRET_KEY: t.config.secretKey,
        LOG_LEVEL: 'warn',
        ...(t.config.database.kind === 'postgres' ? { DATABASE_URL: t.config.database.url } : {}),
      },
    });
  });
  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await t.close();
  });

  it('prints a setup link on an empty database that leads to a working account', async () => {
    const match = await waitForOutput(child, /\/invitation\/([0-9a-f-]{36})/);
    const inviteKey = match[1] ?? '';
    const info = await fetch(`${base}/api/info`);
    expect(info.status).toBe(200);

    const signup = await fetch(`${base}/api/signup`, {
      method: 'POST',
      body: JSON.stringify({ login: 'first@example.org', password: 'password123', invite_key: inviteKey }),
    });
    expect(signup.status).toBe(200);
    const { api_key: key, group } = (await signup.json()) as { api_key: string; group: string };
    const me = await fetch(`${base}/api/me`, { headers: { 'X-AUTH-TOKEN': key } });
    const body = (await me.json()) as { groups: { id: string }[] };
    expect(body.groups.map((g) => g.id)).toEqual([group]);
    // The client route of the setup link is served by the web client.
    const page = await fetch(`${base}/invitation/${inviteKey}`);
    expect(page.headers.get('content-type')).toContain('text/html');
  });

  it('stops cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
