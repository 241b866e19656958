// Hostile load (issue 15): while one member sends the worst requests we know of — previews of
// deeply nested pages, extreme images, broken uploads, huge and malformed bodies — a second client
// asks `GET /api/info` one request after another and records how long each answer took. The worst
// of those is what every other user of the instance would have waited.
//
//   npm run bench:hostile            (builds first; a fresh server on a temporary SQLite database)
//
// Prints one line per phase and writes bench/results/hostile.json. Not part of `npm test`: it
// measures, it does not assert (the regression tests of each finding live beside the code).
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { freePort, serveCommand, spawnTracked, stopChild } from './lib/runner/server.ts';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const MIB = 1024 * 1024;

/**
 * The three page shapes that froze the server, each just under 2 MiB, nested inside a head that
 * never closes (the worst case: a reader that stops at `</head>` never gets there).
 */
function nestedPage(open: string): string {
  const head = '<!doctype html><html><head><title>Deep</title><meta property="og:title" content="Deep">';
  return `${head}${open.repeat(Math.floor((2 * MIB - head.length) / open.length))}`;
}

const PAGES: Record<string, string> = {
  divs: nestedPage('<div>'),
  'p-b': nestedPage('<p><b>'),
  tables: nestedPage('<table><tr><td>'),
  'no-head-end': `<html><head>${'<meta name="x" content="y">'.repeat(70_000)}`,
  attributes: `<html><head><meta ${'a="b" '.repeat(300_000)}></head></html>`,
};

function serveHostilePages(): Promise<Server> {
  const server = createServer((request, response) => {
    const name = (request.url ?? '/').split('?')[0]?.slice(1) ?? '';
    const page = PAGES[name];
    if (page === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  // Every address of 127.0.0.0/8 reaches it: each phase asks another host, so the per-host
  // throttle of previews never answers instead of the parser.
  return new Promise((resolve) => server.listen(0, '0.0.0.0', () => resolve(server)));
}

interface Sample {
  at: number;
  ms: number;
}

/** `GET /api/info` one after another until stopped: the latency other users would have seen. */
function monitor(url: string): { stop: () => Promise<Sample[]> } {
  const samples: Sample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const res = await fetch(`${url}/api/info`, { signal: AbortSignal.timeout(60_000) });
        await res.arrayBuffer();
      } catch {
        // A refused request still counts its time.
      }
      samples.push({ at: started, ms: performance.now() - started });
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

interface PhaseResult {
  phase: string;
  requests: number;
  statuses: Record<string, number>;
  slowest_request_ms: number;
  info_samples: number;
  info_worst_ms: number;
  info_p99_ms: number;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kith-hostile-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const pages = await serveHostilePages();
  const pagesPort = (pages.address() as AddressInfo).port;
  let hostNumber = 1;
  const pagesHost = () => `http://127.0.0.${(hostNumber += 1)}:${pagesPort}`;
  const serve = serveCommand(REPO_ROOT);
  const { child, tail } = spawnTracked(
    [...serve.flags, path.join(REPO_ROOT, 'server', 'dist', 'main.js')],
    {
      ...process.env,
      ...serve.env,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: url,
      LOG_LEVEL: 'info',
      LINK_PREVIEW_ALLOW_LOOPBACK: 'true',
      DATABASE_URL: '',
    },
    'server',
  );
  try {
    let invitation: string | null = null;
    for (let tries = 0; invitation === null && tries < 600; tries += 1) {
      invitation = /\/invitation\/([0-9a-f-]{36})/.exec(tail())?.[1] ?? null;
      if (invitation === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (invitation === null) throw new Error(`no setup link printed:\n${tail()}`);
    const signup = await fetch(`${url}/api/signup`, {
      method: 'POST',
      body: JSON.stringify({ login: 'mallory@example.org', password: 'correct horse battery', invite_key: invitation }),
    });
    const { api_key: key } = (await signup.json()) as { api_key: string };
    const me = (await (await fetch(`${url}/api/me`, { headers: { 'x-auth-token': key } })).json()) as {
      groups: { id: string }[];
    };
    const group = me.groups[0]?.id ?? '';

    const results: PhaseResult[] = [];
    const phase = async (name: string, requests: (() => Promise<Response>)[], concurrency = 1) => {
      const watch = monitor(url);
      const statuses: Record<string, number> = {};
      let slowest = 0;
      const queue = [...requests];
      const worker = async () => {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
          const started = performance.now();
          try {
            const res = await next();
            await res.arrayBuffer();
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          } catch {
            statuses.network = (statuses.network ?? 0) + 1;
          }
          slowest = Math.max(slowest, performance.now() - started);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      const samples = (await watch.stop()).map((s) => s.ms).sort((a, b) => a - b);
      const result: PhaseResult = {
        phase: name,
        requests: requests.length,
        statuses,
        slowest_request_ms: Math.round(slowest),
        info_samples: samples.length,
        info_worst_ms: Math.round((samples.at(-1) ?? 0) * 10) / 10,
        info_p99_ms: Math.round((samples[Math.floor(samples.length * 0.99)] ?? 0) * 10) / 10,
      };
      results.push(result);
      console.log(
        `${name.padEnd(34)} ${String(result.requests).padStart(4)} requests ${JSON.stringify(statuses).padEnd(34)} slowest ${String(result.slowest_request_ms).padStart(6)} ms | /api/info: ${String(result.info_samples).padStart(5)} answers, worst ${String(result.info_worst_ms).padStart(6)} ms, p99 ${result.info_p99_ms} ms`,
      );
    };
    const authed = { 'x-auth-token': key };
    // Every hostile request gives up after a minute, so a stalled one shows as `network` instead of
    // stopping the run.
    const get = (route: string) => () =>
      fetch(`${url}${route}`, { headers: authed, signal: AbortSignal.timeout(60_000) });
    const send =
      (method: string, route: string, body: string | Buffer, type = 'application/json') =>
      () =>
        fetch(`${url}${route}`, {
          method,
          headers: { ...authed, 'content-type': type },
          body,
          signal: AbortSignal.timeout(60_000),
        });

    await phase(
      'idle (nothing else)',
      Array.from({ length: 200 }, () => get('/api/info')),
    );
    for (const name of Object.keys(PAGES)) {
      // A new query string each time: the cache never answers, every request fetches and parses.
      const host = pagesHost();
      await phase(
        `preview of ${name} (2 MiB), x3`,
        [1, 2, 3].map((n) => get(`/api/links/by_url?url=${encodeURIComponent(`${host}/${name}?n=${n}`)}`)),
      );
    }
    await phase(
      'previews of all shapes, 5 at once',
      Object.keys(PAGES).map((name) =>
        get(`/api/links/by_url?url=${encodeURIComponent(`${pagesHost()}/${name}?all`)}`),
      ),
      5,
    );

    const tall = await sharp({ create: { width: 1, height: 100_000, channels: 3, background: '#888' } })
      .png()
      .toBuffer();
    const wide = await sharp({ create: { width: 100_000, height: 1, channels: 3, background: '#888' } })
      .png()
      .toBuffer();
    const boundary = 'hostile-boundary';
    const form = (name: string, data: Buffer, type: string) =>
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`,
        ),
        data,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
    const multipartType = `multipart/form-data; boundary=${boundary}`;
    const photo = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#4a7' } })
      .jpeg()
      .toBuffer();
    await phase('uploads: extreme and large images', [
      send('POST', '/api/files', form('tall.png', tall, 'image/png'), multipartType),
      send('POST', '/api/files', form('wide.png', wide, 'image/png'), multipartType),
      send('POST', '/api/files', form('photo.jpg', photo, 'image/jpeg'), multipartType),
    ]);
    const good = form('a.txt', Buffer.from('hello'), 'text/plain');
    await phase('broken multipart', [
      send('POST', '/api/files', good, 'multipart/form-data'),
      send('POST', '/api/files', good, 'multipart/form-data; boundary=nope'),
      send('POST', '/api/files', good.subarray(0, good.length - 10), multipartType),
      send('POST', '/api/files', Buffer.from('garbage'), multipartType),
    ]);
    const bodies: [string, () => Promise<Response>][] = [
      [
        'post of 50,000 characters',
        send('POST', '/api/messages', JSON.stringify({ group, data: { text: 'a '.repeat(25_000) } })),
      ],
      ['1 MiB of [', send('POST', '/api/messages', '['.repeat(MIB - 1))],
      [
        '150,000 nested objects',
        send('POST', '/api/messages', `{"a":${'{"a":'.repeat(150_000)}1${'}'.repeat(150_001)}`),
      ],
      ['invalid UTF-8', send('POST', '/api/messages', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]))],
      [
        'search of 400,000 words',
        send('POST', '/api/messages/search', JSON.stringify({ group, search: 'a '.repeat(400_000) })),
      ],
      [
        'search of 50,000 hashtags',
        send(
          'POST',
          '/api/messages/search',
          JSON.stringify({ group, hashtags: Array.from({ length: 50_000 }, () => 'x') }),
        ),
      ],
    ];
    for (const [name, request] of bodies) await phase(`body: ${name}, x3`, [request, request, request]);

    const out = path.join(REPO_ROOT, 'bench', 'results');
    mkdirSync(out, { recursive: true });
    writeFileSync(
      path.join(out, 'hostile.json'),
      `${JSON.stringify({ date: new Date().toISOString(), phases: results }, null, 2)}\n`,
    );
    const worst = Math.max(...results.slice(1).map((r) => r.info_worst_ms));
    console.log(
      `\nworst GET /api/info latency under hostile requests: ${worst} ms (idle: ${results[0]?.info_worst_ms} ms)`,
    );
  } finally {
    await stopChild(child);
    pages.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
