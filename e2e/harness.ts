import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Root of the checkout (the folder above `e2e/`). */
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The built server started by `startKith`. */
const SERVER_MAIN = path.join(REPO_ROOT, 'server', 'dist', 'main.js');
/** Where `screenshot` writes its PNG files, kept as CI artifacts (git-ignored). */
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'e2e', 'artifacts');

const READY_TIMEOUT_MS = 30_000;
const INVITATION_WAIT_MS = 5_000;
const STOP_GRACE_MS = 5_000;
const INVITATION_LINE = /(https?:\/\/\S+\/invitation\/[^\s/]+)\r?\n/;

/** A running Kith server on a fresh data folder, as returned by `startKith`. */
export interface Kith {
  /** Base address of the server, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  url: string;
  /** The server's `DATA_DIR`: SQLite database, uploads and the mail outbox; removed by `stop()`. */
  dataDir: string;
  /** The first-run invitation link printed by the server on an empty database, or null if none was printed. */
  invitationUrl: string | null;
  /** Everything the server wrote so far, stdout and stderr interleaved. */
  logs(): string;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and removes the data folder; safe to call twice. */
  stop(): Promise<void>;
}

/** Options of `startKith`. */
export interface StartOptions {
  /** Extra environment variables for the server; they win over the harness's defaults. */
  env?: Record<string, string>;
}

// Child processes (servers, the deployment suite's nginx…) still running when the test process
// exits are killed, so a failed run leaves none behind: add them here, delete them on exit. One set
// per process: Vitest may evaluate this module again for every test file in the same worker.
const RUNNING = Symbol.for('kith.e2e.runningServers');
const registry = globalThis as typeof globalThis & { [RUNNING]?: Set<ChildProcess> };
export const running = (registry[RUNNING] ??= (() => {
  const set = new Set<ChildProcess>();
  process.once('exit', () => {
    for (const child of set) child.kill('SIGKILL');
  });
  return set;
})());

/** Starts the built server (`server/dist/main.js`) on a free port and a fresh temporary data folder. */
export async function startKith(options: StartOptions = {}): Promise<Kith> {
  if (!existsSync(SERVER_MAIN)) {
    throw new Error(`${SERVER_MAIN} is missing: build the server first with \`npm run build:server\``);
  }
  // The port is chosen before the start because PUBLIC_URL (written into links and mails) needs it;
  // another process may take it in between, so a start that fails with EADDRINUSE is tried again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (attempt >= 3 || !(error instanceof PortTakenError)) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startOnce(options: StartOptions): Promise<Kith> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'kith-e2e-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PUBLIC_URL: url,
    LOG_LEVEL: 'warn',
    SECRET_KEY: randomBytes(32).toString('hex'),
    // Empty values count as unset for the server but keep a developer's `.env` from filling them in:
    // SQLite in DATA_DIR, and mails written to DATA_DIR/outbox.
    SMTP_URL: '',
    DATABASE_URL: '',
    BASE_PATH: '',
    ...options.env,
  };

  const child = spawn(process.execPath, [SERVER_MAIN], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (output += chunk));
  child.stderr.on('data', (chunk: string) => {
    output += chunk;
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', () => running.delete(child));

  let stopped: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      await rm(dataDir, { recursive: true, force: true });
    })();
    return stopped;
  };

  try {
    await waitUntilReady(child, `${url}/api/info`, () => stderr);
  } catch (error) {
    await stop();
    if (/EADDRINUSE/.test(stderr)) throw new PortTakenError(`port ${port} was taken`);
    throw error;
  }

  // The link is printed just after the server starts listening, when the database has no account.
  const deadline = Date.now() + INVITATION_WAIT_MS;
  while (!INVITATION_LINE.test(output) && Date.now() < deadline && child.exitCode === null) await sleep(50);
  const invitationUrl = INVITATION_LINE.exec(output)?.[1] ?? null;

  return { url, dataDir, invitationUrl, logs: () => output, stop };
}

/** Polls the URL until it answers 200; fails on exit or after 30 s with the server's stderr. */
async function waitUntilReady(child: ChildProcess, url: string, stderr: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `Kith exited (${child.exitCode ?? child.signalCode}) before answering ${url}; stderr:\n${stderr()}`,
      );
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      throw new Error(`Kith did not answer ${url} with 200 within ${READY_TIMEOUT_MS / 1000} s; stderr:\n${stderr()}`);
    }
    await sleep(100);
  }
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no free port')),
      );
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Launches headless Chromium: `$CHROMIUM_PATH`, else Debian's `/usr/bin/chromium` (never a downloaded browser). */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(`Chromium not found at ${executablePath}: apt-get install chromium, or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      // Each new context opens a window, and Chromium 156 builds that window's address-bar popup (a
      // page of its own, in another renderer) while the tested page loads: on two cores it took
      // most of a core from the page under test, which first painted a card after ~620 ms with it
      // and ~400 without (bench/README.md, issue 23's thirteenth session). No test uses that popup.
      '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,PreloadTopChromeWebUI',
    ],
  });
}

/** The two screen sizes every scenario is checked at. */
export const VIEWPORTS = {
  phone: { width: 375, height: 812 },
  desktop: { width: 1280, height: 800 },
} as const;

/** A viewport by name (`'phone'`, `'desktop'`) or by size; widths under 768 px are treated as a touch phone. */
export type Viewport = keyof typeof VIEWPORTS | { width: number; height: number };

/** An isolated browser context (its own cookies and storage) with one page, and the errors it reports. */
export interface IsolatedPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and `console.error` messages, in order (favicon 404s left out). */
  errors: string[];
}

/** Options of `newPage`. */
export interface PageOptions {
  /** The system colour scheme the page sees (`prefers-color-scheme`); light unless told. */
  colorScheme?: 'light' | 'dark';
  /** The browser's language (`navigator.languages`, Accept-Language); en-US unless told. */
  locale?: string;
}

/** Opens a page in a new isolated context, so several users can be signed in at once; close it with `context.close()`. */
export async function newPage(browser: Browser, viewport: Viewport, options: PageOptions = {}): Promise<IsolatedPage> {
  const size = typeof viewport === 'string' ? VIEWPORTS[viewport] : viewport;
  const mobile = size.width < 768;
  const context = await browser.newContext({
    viewport: { width: size.width, height: size.height },
    isMobile: mobile,
    hasTouch: mobile,
    locale: options.locale ?? 'en-US',
    colorScheme: options.colorScheme ?? 'light',
    // No transitions (global.css zeroes them under reduced motion): an accessibility or layout
    // check then never catches a menu or an alert halfway through its animation, however busy
    // the machine, as two scenario files run at once.
    reducedMotion: 'reduce',
  });
  // Limits for a busy machine (both cores loaded by other work): a condition that holds is met at
  // once, a slow start of the server or the browser only makes the wait longer.
  context.setDefaultTimeout(30_000);
  context.setDefaultNavigationTimeout(60_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const where = message.location().url;
    if (/favicon/i.test(where) || /favicon/i.test(message.text())) return;
    errors.push(`console error: ${message.text()}${where === '' ? '' : ` (${where})`}`);
  });
  return { context, page, errors };
}

/** Saves a full-page PNG as `e2e/artifacts/<name>.png` (folders created as needed) and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await mkdir(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** The raw text (CRLF lines, MIME-encoded) of every mail in `$DATA_DIR/outbox`, oldest first. */
export async function outboxMails(kith: Kith): Promise<string[]> {
  const outbox = path.join(kith.dataDir, 'outbox');
  let names: string[];
  try {
    names = (await readdir(outbox)).filter((name) => name.endsWith('.eml'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  // Files are named `<queue time ISO>-<message id>.eml`; the write time breaks ties within a millisecond.
  const files = await Promise.all(
    names.map(async (name) => ({ name, mtime: (await stat(path.join(outbox, name))).mtimeMs })),
  );
  files.sort((a, b) => a.name.slice(0, 24).localeCompare(b.name.slice(0, 24)) || a.mtime - b.mtime);
  return Promise.all(files.map((file) => readFile(path.join(outbox, file.name), 'utf8')));
}

/** Answer of `api`: the HTTP status and the body (parsed JSON, else text; null when empty). */
export interface ApiResponse<T> {
  status: number;
  body: T;
}

/**
 * Calls the real HTTP API, for seeding: `route` is under `/api` (`'/info'` and `'/api/info'` are the
 * same); `body` is sent as JSON; `apiKey` goes in `X-AUTH-TOKEN`.
 */
export async function api<T = unknown>(
  kith: Kith,
  method: string,
  route: string,
  body?: unknown,
  apiKey?: string,
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (apiKey !== undefined) headers['X-AUTH-TOKEN'] = apiKey;
  const target = /^\/api(\/|$|\?)/.test(route) ? route : `/api${route.startsWith('/') ? '' : '/'}${route}`;
  const res = await fetch(`${kith.url}${target}`, {
    method: method.toUpperCase(),
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text === '' ? null : text;
  if (text !== '' && /\bjson\b/i.test(res.headers.get('content-type') ?? '')) parsed = JSON.parse(text);
  return { status: res.status, body: parsed as T };
}
