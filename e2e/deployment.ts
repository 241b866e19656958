// A scale-out deployment on one machine, for the process-level scenarios: the built server started
// as separate `--role web` and `--role worker` processes, and nginx in front of the web ones with
// the configuration operators are given (deploy/nginx/kith.conf, filled in as docs/scale-out.md
// shows). No browser.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { EventReader } from '../server/test/sse.js';
import { freePort, running } from './harness.js';
import { NGINX_BINARY, upstreamLines, writeLocalNginx } from '../deploy/nginx.ts';

export { fillTemplate, NGINX_TEMPLATE } from '../deploy/nginx.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '..');
const SERVER_MAIN = path.join(REPO_ROOT, 'server', 'dist', 'main.js');

/** How a child process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child process with its output kept, for the errors a failing scenario shows. */
interface Child {
  child: ChildProcess;
  /** Everything it wrote so far, stdout and stderr interleaved. */
  logs(): string;
  /** Settles when it has exited, with the time it was seen to. */
  exited: Promise<Exit & { at: number }>;
  /** Still running (no exit seen yet). */
  alive(): boolean;
  /** Sends `signal`, then SIGKILL after `graceMs`; resolves once it has exited. Safe to call twice. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<Exit>;
}

function track(child: ChildProcess): Child {
  running.add(child);
  let output = '';
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => (output += chunk));
  child.stderr?.on('data', (chunk: string) => (output += chunk));
  let done = false;
  const exited = new Promise<Exit & { at: number }>((resolve) =>
    child.once('exit', (code, signal) => {
      done = true;
      running.delete(child);
      resolve({ code, signal, at: Date.now() });
    }),
  );
  return {
    child,
    logs: () => output,
    exited,
    alive: () => !done,
    async stop(signal = 'SIGTERM', graceMs = 10_000) {
      if (!done) {
        child.kill(signal);
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
  };
}

/** One process of the built server. */
export interface KithProcess extends Child {
  role: 'web' | 'worker';
  /** `http://127.0.0.1:<port>` of a web process; null for a worker, which serves no HTTP. */
  url: string | null;
  /** `127.0.0.1:<port>`, as nginx's `$upstream_addr` names it; null for a worker. */
  address: string | null;
}

/**
 * Starts `server/dist/main.js --role <role>` with `env` (data stores, secret, public URL…) and its
 * own `DATA_DIR` (media work folders, the mail outbox). A web process listens on `port`.
 */
export function startKithProcess(
  role: 'web' | 'worker',
  env: Record<string, string>,
  options: { dataDir: string; port?: number },
): KithProcess {
  const port = role === 'web' ? options.port : undefined;
  if (role === 'web' && port === undefined) throw new Error('a web process needs a port');
  const child = spawn(process.execPath, [SERVER_MAIN, '--role', role], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      // A worker never listens, but the setting must still be valid.
      PORT: String(port ?? 0),
      DATA_DIR: options.dataDir,
      // Empty values count as unset and keep a developer's `.env` from filling them in.
      SMTP_URL: '',
      BASE_PATH: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const address = port === undefined ? null : `127.0.0.1:${port}`;
  return { ...track(child), role, address, url: address === null ? null : `http://${address}` };
}

/** Polls the readiness probe of a web process until it answers 200 (fails if the process exits first). */
export async function whenReady(server: KithProcess, timeoutMs = 60_000): Promise<void> {
  if (server.url === null) throw new Error('a worker has no readiness probe');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!server.alive()) throw new Error(`the ${server.role} process exited at start:\n${server.logs()}`);
    try {
      const res = await fetch(`${server.url}/api/health/ready`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${server.url} was not ready within ${timeoutMs} ms:\n${server.logs()}`);
    await sleep(100);
  }
}

/** The values docs/scale-out.md fills the template with: two web processes on one machine, TLS. */
export const DOCUMENTED_NGINX_VALUES = {
  UPSTREAMS: upstreamLines(['127.0.0.1:8081', '127.0.0.1:8082']),
  LISTEN: '443 ssl',
  TLS: [
    '    ssl_certificate /etc/letsencrypt/live/kith.example.org/fullchain.pem;',
    '    ssl_certificate_key /etc/letsencrypt/live/kith.example.org/privkey.pem;',
  ].join('\n'),
  SERVER_NAME: 'kith.example.org',
  MAX_BODY: '2049m',
  ACCESS_LOG: '/var/log/nginx/kith.access.log',
};

/** One line of the access log (format `kith_upstream` of the template). */
export interface AccessLine {
  request: string;
  status: number;
  /** The processes tried, in order: more than one when nginx passed the request on. */
  upstreams: string[];
  raw: string;
}

export interface Nginx {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Every request logged so far (nginx logs a request once it is over). */
  accessLog(): Promise<AccessLine[]>;
  /** nginx's error log: refused connections, upstreams marked down… */
  errorLog(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts Debian's nginx as a child of the test (never the system's service) with the template
 * filled in for `upstreams`, everything it writes (pid, logs, temporary bodies) under `dir`.
 */
export async function startNginx(options: { upstreams: string[]; dir: string; maxBody: string }): Promise<Nginx> {
  const port = await freePort();
  const { args, accessLogFile, errorLogFile } = await writeLocalNginx({ ...options, port });
  const nginx = track(spawn(NGINX_BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (!nginx.alive()) throw new Error(`nginx exited at start:\n${nginx.logs()}\n${await safeRead(errorLogFile)}`);
    try {
      // nginx answers once it listens; a 502 just means no web process is ready yet.
      await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2_000) });
      break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${url}:\n${nginx.logs()}`);
    await sleep(100);
  }
  return {
    url,
    async accessLog() {
      return (await safeRead(accessLogFile))
        .split('\n')
        .filter((line) => line !== '')
        .map(parseAccessLine);
    },
    errorLog: () => safeRead(errorLogFile),
    async stop() {
      // SIGQUIT: nginx's graceful stop; SIGKILL after 5 s.
      await nginx.stop('SIGQUIT', 5_000);
    },
  };
}

function parseAccessLine(raw: string): AccessLine {
  const match = /"([^"]*)" (\d{3}) \d+ upstream="([^"]*)"/.exec(raw);
  if (match === null) throw new Error(`unexpected access log line: ${raw}`);
  const upstreams = match[3] === '-' ? [] : match[3]!.split(/[,:]\s+/).filter((s) => s !== '');
  return { request: match[1]!, status: Number(match[2]), upstreams, raw };
}

async function safeRead(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/** Answer of `call`: the status and the body (parsed JSON, else text). */
export interface Answer<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** One API request to `base` (a process or nginx), JSON in and out; `key` goes in `X-AUTH-TOKEN`. */
export async function call<T = any>( // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  base: string,
  method: string,
  route: string,
  body?: unknown,
  options: { key?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.key !== undefined) headers['X-AUTH-TOKEN'] = options.key;
  const res = await fetch(`${base}${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** Uploads a file as the web client does (multipart, `file` part); answers the status and File. */
export async function upload(
  base: string,
  key: string,
  bytes: Buffer,
  name: string,
  type: string,
): Promise<Answer<{ id: string; status: string }>> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
  const res = await fetch(`${base}/api/files`, {
    method: 'POST',
    headers: { 'X-AUTH-TOKEN': key },
    body: form,
    signal: AbortSignal.timeout(120_000),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as { id: string; status: string } };
}

/**
 * Opens the live event stream at `base` and reads its first frame (`retry: 5000`): from then on
 * the process knows the stream and sends it every event.
 */
export async function openStream(base: string, key: string, lastEventId?: number): Promise<EventReader> {
  const controller = new AbortController();
  const res = await fetch(`${base}/api/events`, {
    headers: { 'X-AUTH-TOKEN': key, ...(lastEventId === undefined ? {} : { 'Last-Event-ID': String(lastEventId) }) },
    signal: controller.signal,
  });
  if (res.status !== 200) throw new Error(`GET ${base}/api/events: ${res.status} ${await res.text()}`);
  const reader = new EventReader(res, controller);
  const first = await reader.next(30_000);
  if (first?.retry !== '5000') throw new Error(`the stream began with ${JSON.stringify(first)}`);
  return reader;
}

/** Ids of the processes whose command line mentions `text` (Linux: read from /proc). */
export async function processesMentioning(text: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      if (cmdline.includes(text)) found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** Polls `check` until it answers something other than undefined; fails after `timeoutMs` saying `what`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(intervalMs);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
