import dns from 'node:dns';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { LinkPreview } from '@kith/common';
import { Parser } from 'htmlparser2';
import { Value } from 'typebox/value';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { expectError, UUID_V4 } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { createTestApp, useTestApp, type TestApp } from '../../../test/harness.js';
import { IFRAME_SANDBOX } from './embeds.js';
import { linkFetchLimits } from './fetcher.js';
import { pageReaderLimits } from './page-reader.js';
import { HTML_READ_BUDGET } from './parse.js';
import { linkPreviewsSettled, storeLink } from './service.js';

// Every page these tests fetch is served by a node:http server on 127.0.0.1 (port 0). Nothing here
// ever connects anywhere else: the private and metadata addresses below are refused before any
// connection is made, and the tests check that no request was even started.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const seconds = (ms: number): number => Math.floor(ms / 1000);

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A local web site whose pages the tests define, counting the requests each path gets. */
class TestSite {
  /** `host`: the loopback address it listens on (127.0.0.0/8 is all this machine's). */
  constructor(private readonly host = '127.0.0.1') {}

  private server: http.Server | undefined;
  private port = 0;
  private readonly routes = new Map<string, Handler>();
  readonly hits = new Map<string, number>();
  readonly userAgents: string[] = [];
  readonly cookies: (string | undefined)[] = [];

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      this.userAgents.push(String(req.headers['user-agent']));
      this.cookies.push(req.headers.cookie);
      res.on('error', () => undefined);
      const handler = this.routes.get(path);
      if (handler === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      handler(req, res);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, this.host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  url(path: string): string {
    return `http://${this.host}:${this.port}${path}`;
  }

  count(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  on(path: string, handler: Handler): string {
    this.routes.set(path, handler);
    return this.url(path);
  }

  html(path: string, body: string | (() => string), status = 200): string {
    return this.on(path, (_req, res) => {
      res
        .writeHead(status, { 'content-type': 'text/html; charset=utf-8' })
        .end(typeof body === 'string' ? body : body());
    });
  }
}

const page = (head: string, body = '<p>Hello</p>'): string =>
  `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

describe('link previews (§2.9, §7.5), pages served on loopback (test switch on)', () => {
  const h = useTestApp({ LINK_PREVIEW_ALLOW_LOOPBACK: 'true' });
  const site = new TestSite();
  let ana: BuiltUser;
  const t = (): TestApp => h.t;
  const api = (): ApiClient => h.api;

  const preview = (url: string, key: string = ana.key) =>
    api().get(`/links/by_url?url=${encodeURIComponent(url)}`, { key });

  beforeAll(() => site.start());
  afterAll(() => site.stop());
  // A user per test: fetches of one host are throttled per user (10 per 10 minutes), and every page
  // here is on the same host.
  beforeEach(async () => {
    ana = await buildUser(t().ctx);
  });

  it('reads Open Graph tags and resolves a relative image URL against the final URL', async () => {
    const url = site.html(
      '/og/article',
      page(`
        <title>Plain title</title>
        <meta property="og:title" content="Tide tables &amp; more">
        <meta property="og:description" content="Tides for the coming week.">
        <meta property="og:site_name" content="Example">
        <meta property="og:url" content="/og/canonical">
        <meta property="og:image" content="../img/tide.png">
        <meta name="description" content="not this one">`),
    );
    const res = await preview(url);
    expect(res.status, res.text).toBe(200);
    expect(Value.Check(LinkPreview, res.body)).toBe(true);
    expect(Object.keys(res.body as object).sort()).toEqual(['data', 'entityType', 'id', 'preview', 'updatedAt', 'url']);
    expect(res.body.id).toMatch(UUID_V4);
    expect(res.body.entityType).toBe('link');
    expect(res.body.url).toBe(url);
    expect(res.body.updatedAt).toBe(seconds(t().clock.now()));
    // The image URL answers 404 here, so no preview image is stored: "" (the 0.5.6 client needs a string).
    expect(res.body.preview).toBe('');
    expect(res.body.data).toEqual({
      origin: url,
      title: 'Tide tables & more',
      description: 'Tides for the coming week.',
      url: site.url('/og/canonical'),
      providerName: 'Example',
      'content-type': ['text/html; charset=utf-8'],
      image: site.url('/img/tide.png'),
      code: null,
    });
    // A fixed User-Agent naming Kith, and no cookie.
    expect(site.userAgents.at(-1)).toMatch(/Kith/);
    expect(site.cookies.at(-1)).toBeUndefined();
  });

  it('falls back to Twitter card tags, then <title> and <meta name=description>', async () => {
    const twitter = site.html(
      '/tw/post/1',
      page(`
        <title>Ignored</title>
        <meta name="twitter:title" content="Twitter title">
        <meta name="twitter:description" content="Twitter description">
        <meta name="twitter:image" content="pic.jpg">`),
    );
    const res = await preview(twitter);
    expect(res.status).toBe(200);
    expect(res.body.data.title).toBe('Twitter title');
    expect(res.body.data.description).toBe('Twitter description');
    expect(res.body.data.image).toBe(site.url('/tw/post/pic.jpg'));

    const long = 'word '.repeat(300);
    const plain = site.html(
      '/plain',
      page(`<title>  A   plain\n page </title><meta name="description" content="${long}">`),
    );
    const res2 = await preview(plain);
    expect(res2.status).toBe(200);
    expect(res2.body.data.title).toBe('A plain page');
    expect(res2.body.data.description.length).toBeLessThanOrEqual(500);
    expect(res2.body.data.description.length).toBeGreaterThan(450);
    expect(res2.body.data.description.startsWith('word word')).toBe(true);
    // Without og:url the canonical URL is the final URL; without og:site_name, the host.
    expect(res2.body.data.url).toBe(plain);
    expect(res2.body.data.providerName).toBe('127.0.0.1');
    expect(res2.body.data).not.toHaveProperty('image');
  });

  it('discovers oEmbed through the same fetcher to fill the title and provider', async () => {
    const oembed = site.on('/oembed', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          type: 'video',
          title: 'Film from oEmbed',
          provider_name: 'Example Videos',
          html: '<script>alert(1)</script><iframe src="https://evil.example/"></iframe>',
        }),
      );
    });
    const url = site.html(
      '/video/7',
      page(
        `<link rel="alternate" type="application/json+oembed" href="/oembed?url=%2Fvideo%2F7&format=json">` +
          `<meta property="og:description" content="A film.">`,
      ),
    );
    const res = await preview(url);
    expect(res.status).toBe(200);
    expect(site.count('/oembed')).toBe(1);
    expect(res.body.data.title).toBe('Film from oEmbed');
    expect(res.body.data.providerName).toBe('Example Videos');
    expect(res.body.data.code).toBeNull();
    expect(res.text).not.toContain('evil.example');
    expect(res.text).not.toContain('<script');
    expect(oembed).toContain('/oembed');
  });

  it('makes a card with its content-type for a direct image URL, without parsing it', async () => {
    const url = site.on('/photo.jpg', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.alloc(64 * 1024, 0xff));
    });
    const res = await preview(url);
    expect(res.status).toBe(200);
    expect(res.body.data['content-type']).toEqual(['image/jpeg']);
    expect(res.body.data.code).toBeNull();
    expect(res.body.data.origin).toBe(url);
    expect(res.body.data).not.toHaveProperty('title');
    expect(res.body.data).not.toHaveProperty('exception');
  });

  it('never takes embed code from the page: scripts, iframes and declared players are ignored', async () => {
    const hostile = site.html(
      '/hostile',
      page(
        `<title>Hostile</title>
         <meta property="og:video" content="https://evil.example/player">
         <meta name="twitter:player" content="javascript:alert(1)">
         <link rel="alternate" type="application/json+oembed" href="/hostile-oembed">`,
        `<script>alert(1)</script><iframe src="https://evil.example/frame"></iframe>`,
      ),
    );
    site.on('/hostile-oembed', (_req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ provider_name: 'P', html: '<iframe src="https://evil.example/o"></iframe>' }));
    });
    const res = await preview(hostile);
    expect(res.status).toBe(200);
    expect(res.body.data.title).toBe('Hostile');
    expect(res.body.data.code).toBeNull();
    expect(res.text).not.toContain('evil.example');
    expect(res.text).not.toContain('<script');
    expect(res.text).not.toContain('javascript:');

    // A page whose canonical URL is a YouTube video gets Kith's own iframe, and only that.
    const video = site.html(
      '/declares-youtube',
      page(
        `<meta property="og:url" content="https://www.youtube.com/watch?v=dQw4w9WgXcQ">`,
        `<iframe src="https://evil.example/frame"></iframe><script>alert(1)</script>`,
      ),
    );
    const res2 = await preview(video);
    expect(res2.status).toBe(200);
    expect(res2.body.data.code).toBe(
      `<iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ" width="560" height="315" frameborder="0" sandbox="${IFRAME_SANDBOX}" allowfullscreen></iframe>`,
    );
  });

  it('reads at most the first 512 KiB of HTML and still answers with what it read', async () => {
    let written = 0;
    let closedEarly = false;
    const url = site.on('/huge', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><head><title>Huge page</title></head><body>');
      const chunk = `<p>${'x'.repeat(64 * 1024)}</p>`;
      const total = 16 * 1024 * 1024;
      res.on('close', () => {
        if (written < total) closedEarly = true;
      });
      const pump = (): void => {
        while (written < total) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end('<meta property="og:description" content="after the cap"></body></html>');
      };
      pump();
    });
    const res = await preview(url);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.title).toBe('Huge page');
    expect(res.body.data).not.toHaveProperty('description');
    expect(res.body.data).not.toHaveProperty('exception');
    await vi.waitFor(() => expect(closedEarly).toBe(true));
  });

  /** `<head><title>` then `unit` nested over and over, the head never closed: issue 15's attack. */
  const nestedPage = (title: string, unit: string, bytes: number): string => {
    const start = `<!doctype html><html><head><title>${title}</title><meta property="og:description" content="Deep">`;
    return start + unit.repeat(Math.ceil((bytes - start.length) / unit.length));
  };

  it.each([
    ['<div>', 'div'],
    ['<p><b>', 'p-b'],
    ['<table><tr><td>', 'table'],
  ])('previews a page of nested %s from its first 512 KiB, parsed off the main thread', async (unit, name) => {
    // htmlparser2 spends the square of the nesting depth on such markup: 2 MiB of it held the thread
    // that answers every request for 20-45 s. This page is 1 MiB and its server never ends it, so
    // the answer can only come from the first bytes, and the connection is closed by Kith.
    const body = nestedPage(`Nested ${name}`, unit, 1024 * 1024);
    let closedByKith = false;
    const url = site.on(`/nested/${name}`, (_req, res) => {
      res.on('close', () => {
        closedByKith = true;
      });
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write(body);
    });
    // Any parse on this thread goes through htmlparser2's Parser here; the worker has its own copy.
    const parses = vi.spyOn(Parser.prototype, 'write');
    // However busy the machine, the parse finishes: the deadline is tested on its own below.
    const saved = pageReaderLimits.deadlineMs;
    pageReaderLimits.deadlineMs = 60_000;
    try {
      let answered = false;
      const pending = preview(url).finally(() => {
        answered = true;
      });
      // Other requests are answered meanwhile. (app.inject may answer without any I/O: a turn of
      // the event loop between two lets the preview's own network and worker messages through.)
      let infos = 0;
      while (!answered) {
        expect((await t().app.inject({ method: 'GET', url: '/api/info' })).statusCode).toBe(200);
        infos += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
      const res = await pending;
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.title).toBe(`Nested ${name}`);
      expect(res.body.data.description).toBe('Deep');
      expect(res.body.data).not.toHaveProperty('exception');
      expect(infos).toBeGreaterThan(0);
      expect(parses).not.toHaveBeenCalled();
      await vi.waitFor(() => expect(closedByKith).toBe(true));
    } finally {
      pageReaderLimits.deadlineMs = saved;
      parses.mockRestore();
    }
  });

  it('records a page the parser cannot read within its deadline as failed ("timeout"), and reads the next', async () => {
    // A 1 ms deadline, and the slowest shape under the nesting cap (stray end tags, each searched
    // for among 500 open elements): 512 KiB of it take tens of milliseconds.
    const saved = pageReaderLimits.deadlineMs;
    pageReaderLimits.deadlineMs = 1;
    const deep = site.html(
      '/too-deep',
      `<html><head><title>Too deep</title>${'<i>'.repeat(500)}${'</p>'.repeat(HTML_READ_BUDGET / 4)}`,
    );
    try {
      const res = await preview(deep);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ origin: deep, exception: 'timeout' });
    } finally {
      pageReaderLimits.deadlineMs = saved;
    }
    const next = await preview(site.html('/after-deep', page('<title>Read by a new worker</title>')));
    expect(next.body.data.title).toBe('Read by a new worker');
  });

  it('answers 200 with data.exception when the server is too slow, and retries after 1 hour', async () => {
    const saved = linkFetchLimits.totalTimeoutMs;
    linkFetchLimits.totalTimeoutMs = 300;
    const pending: ServerResponse[] = [];
    let slow = true;
    const url = site.on('/slow', (_req, res) => {
      if (slow) pending.push(res);
      else res.writeHead(200, { 'content-type': 'text/html' }).end(page('<title>Fast now</title>'));
    });
    try {
      const res = await preview(url);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ origin: url, exception: 'timeout' });
      expect(res.body.preview).toBe('');
    } finally {
      linkFetchLimits.totalTimeoutMs = saved;
      for (const res of pending) res.destroy();
    }
    slow = false;
    expect(site.count('/slow')).toBe(1);
    t().clock.advance(59 * MINUTE);
    const cached = await preview(url);
    expect(cached.body.data.exception).toBe('timeout');
    expect(site.count('/slow')).toBe(1);
    t().clock.advance(MINUTE);
    const retried = await preview(url);
    expect(site.count('/slow')).toBe(2);
    expect(retried.body.data.title).toBe('Fast now');
    expect(retried.body.data).not.toHaveProperty('exception');
    expect(retried.body.id).toBe(cached.body.id);
  });

  it('turns remote errors into data.exception: HTTP errors and refused connections', async () => {
    const broken = site.html('/broken', 'oops', 500);
    const res = await preview(broken);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ origin: broken, exception: 'HTTP 500' });

    // A loopback port nobody listens on.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await preview(`http://127.0.0.1:${port}/`);
    expect(refused.status).toBe(200);
    expect(refused.body.data.exception).toBe('connection refused');
  });

  it('serves a stored preview without fetching again, and refreshes it after 7 days', async () => {
    let version = 1;
    const url = site.html('/cached', () => page(`<title>Version ${version}</title>`));
    const first = await preview(url);
    expect(first.body.data.title).toBe('Version 1');
    expect(site.count('/cached')).toBe(1);

    version = 2;
    t().clock.advance(DAY);
    const second = await preview(url);
    expect(second.body).toEqual(first.body);
    expect(site.count('/cached')).toBe(1);

    t().clock.advance(6 * DAY - MINUTE);
    expect((await preview(url)).body.data.title).toBe('Version 1');
    expect(site.count('/cached')).toBe(1);

    t().clock.advance(MINUTE);
    const refreshed = await preview(url);
    expect(site.count('/cached')).toBe(2);
    expect(refreshed.body.data.title).toBe('Version 2');
    expect(refreshed.body.id).toBe(first.body.id);
    expect(refreshed.body.updatedAt).toBe(seconds(t().clock.now()));
  });

  it('keeps the last good preview when a refresh fails, and tries again an hour later', async () => {
    let up = true;
    const url = site.on('/flaky', (_req, res) => {
      if (up) res.writeHead(200, { 'content-type': 'text/html' }).end(page('<title>Good</title>'));
      else res.writeHead(503).end();
    });
    expect((await preview(url)).body.data.title).toBe('Good');
    up = false;
    t().clock.advance(7 * DAY);
    const failed = await preview(url);
    expect(site.count('/flaky')).toBe(2);
    expect(failed.body.data.title).toBe('Good');
    t().clock.advance(HOUR - MINUTE);
    await preview(url);
    expect(site.count('/flaky')).toBe(2);
    t().clock.advance(MINUTE);
    await preview(url);
    expect(site.count('/flaky')).toBe(3);
  });

  it('follows relative redirects (each hop checked) and stops after 5', async () => {
    site.on('/r1', (_req, res) => res.writeHead(301, { location: '/r2' }).end());
    site.on('/r2', (_req, res) => res.writeHead(302, { location: site.url('/r-final') }).end());
    site.html('/r-final', page('<title>Arrived</title>'));
    const res = await preview(site.url('/r1'));
    expect(res.status).toBe(200);
    expect(res.body.data.title).toBe('Arrived');
    expect(res.body.data.url).toBe(site.url('/r-final'));
    expect(res.body.url).toBe(site.url('/r1'));

    for (let i = 0; i < 6; i += 1)
      site.on(`/loop${i}`, (_req, r) => r.writeHead(307, { location: `/loop${i + 1}` }).end());
    site.html('/loop6', page('<title>Too far</title>'));
    const five = await preview(site.url('/loop1'));
    expect(five.body.data.title).toBe('Too far');
    const six = await preview(site.url('/loop0'));
    expect(six.status).toBe(200);
    expect(six.body.data).toEqual({ origin: site.url('/loop0'), exception: 'too many redirects' });
  });

  it('refuses a redirect to a private or metadata address before connecting (400 invalid_url)', async () => {
    const targets = [
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.1/',
      'http://192.168.1.1:8080/admin',
      'http://[fd00::1]/',
      'ftp://127.0.0.1/',
      'http://user:secret@127.0.0.1/',
    ];
    const httpSpy = vi.spyOn(http, 'request');
    const httpsSpy = vi.spyOn(https, 'request');
    try {
      for (const [index, target] of targets.entries()) {
        const from = site.on(`/to-private/${index}`, (_req, res) => res.writeHead(302, { location: target }).end());
        httpSpy.mockClear();
        httpsSpy.mockClear();
        const res = await preview(from);
        expectError(res, 400, 'invalid_url', 'url');
        expect(site.count(`/to-private/${index}`)).toBe(1);
        // One request: the first hop, to the loopback test server; none to the refused address.
        expect(httpSpy).toHaveBeenCalledTimes(1);
        expect(httpsSpy).not.toHaveBeenCalled();
      }
    } finally {
      httpSpy.mockRestore();
      httpsSpy.mockRestore();
    }
    // A refused URL is not stored: the next request is refused again.
    expectError(await preview(site.url('/to-private/0')), 400, 'invalid_url');
  });

  it('resolves a name once and connects to the checked address, with the name in the Host header', async () => {
    let host: string | undefined;
    site.on('/pinned', (req, res) => {
      host = req.headers.host;
      res.writeHead(200, { 'content-type': 'text/html' }).end(page('<title>Pinned</title>'));
    });
    // DNS is mocked (no resolver is ever asked): the first answer is checked, a later one would be private.
    let calls = 0;
    const lookup = vi.spyOn(dns.promises, 'lookup').mockImplementation((() => {
      calls += 1;
      return Promise.resolve([{ address: calls === 1 ? '127.0.0.1' : '10.0.0.1', family: 4 }]);
    }) as never);
    try {
      const url = site.url('/pinned').replace('127.0.0.1', 'rebind.test');
      const res = await preview(url);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.title).toBe('Pinned');
      expect(lookup).toHaveBeenCalledTimes(1);
      expect(host).toBe(new URL(url).host);

      // A name with any refused address among its answers is refused as a whole.
      lookup.mockImplementation((() =>
        Promise.resolve([
          { address: '127.0.0.1', family: 4 },
          { address: '169.254.169.254', family: 4 },
        ])) as never);
      const httpSpy = vi.spyOn(http, 'request');
      expectError(await preview(site.url('/pinned?2').replace('127.0.0.1', 'mixed.test')), 400, 'invalid_url');
      expect(httpSpy).not.toHaveBeenCalled();
      httpSpy.mockRestore();
    } finally {
      lookup.mockRestore();
    }
  });

  it('shares one fetch between concurrent first requests for the same URL', async () => {
    const url = site.on('/concurrent', (_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page('<title>Once</title>')), 100);
    });
    const ben = await buildUser(t().ctx);
    const [a, b] = await Promise.all([preview(url), preview(url, ben.key)]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.id).toBe(b.body.id);
    expect(b.body.data.title).toBe('Once');
    expect(site.count('/concurrent')).toBe(1);
  });

  it('stores concurrent results for one new URL in one row (insert … on conflict)', async () => {
    const url = site.url('/race');
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) => storeLink(t().ctx, url, { origin: url, title: `Result ${n}` }, 0)),
    );
    const ids = new Set(results.map((row) => row.id));
    expect(ids.size).toBe(1);
    const rows = await t().ctx.db.kysely.selectFrom('links').selectAll().where('url', '=', url).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]?.data ?? '{}').title).toMatch(/^Result [1-4]$/);
    expect(rows[0]?.preview_file_id).toBeNull();
  });

  /** Sites on other loopback addresses, so that each is another host; stopped when `use` ends. */
  async function withSites<T>(hosts: string[], use: (sites: TestSite[]) => Promise<T>): Promise<T> {
    const sites = hosts.map((host) => new TestSite(host));
    await Promise.all(sites.map((s) => s.start()));
    try {
      return await use(sites);
    } finally {
      await Promise.all(sites.map((s) => s.stop()));
    }
  }

  const echoTitle: Handler = (req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(page(`<title>${req.url ?? ''}</title>`));
  };

  it('throttles new fetches at 60 per user per 10 minutes; cache hits stay free', async () => {
    const zoe = await buildUser(t().ctx);
    // Ten pages on each of six hosts: the per-host limit (10) is never what refuses here.
    const hosts = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7'];
    await withSites(hosts, async (sites) => {
      for (const other of sites) other.on('/n', echoTitle);
      for (const [n, other] of sites.entries()) {
        for (let i = 0; i < 10; i += 1) {
          const res = await preview(other.url(`/n?i=${i}`), zoe.key);
          expect(res.status, `fetch ${n * 10 + i}`).toBe(200);
        }
      }
      const fetched = () => sites.reduce((sum, other) => sum + other.count('/n'), 0);
      expect(fetched()).toBe(60);
      site.on('/n', echoTitle);
      const over = await preview(site.url('/n?i=60'), zoe.key);
      expectError(over, 429, 'too_many_requests');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect(site.count('/n')).toBe(0);
      // Cache hits are free.
      const hit = await preview(sites[0]?.url('/n?i=3') ?? '', zoe.key);
      expect(hit.status).toBe(200);
      expect(hit.body.data.title).toBe('/n?i=3');
      expect(fetched()).toBe(60);
      // Another user is not affected, and after 10 minutes the user may fetch again.
      expect((await preview(site.url('/n?i=60'))).status).toBe(200);
      t().clock.advance(10 * MINUTE);
      expect((await preview(site.url('/n?i=61'), zoe.key)).status).toBe(200);
    });
  });

  it('throttles fetches of one host at 10 per user per 10 minutes, whatever the query string', async () => {
    const zoe = await buildUser(t().ctx);
    const ben = await buildUser(t().ctx);
    site.on('/q', echoTitle);
    // A preview stored earlier and gone stale: served as it is once the host is over its limit.
    const stale = site.url('/q?stale');
    await storeLink(t().ctx, stale, { origin: stale, title: 'Stored a week ago' }, 0);
    t().clock.advance(7 * DAY);
    await withSites(['127.0.0.2'], async ([other]) => {
      other?.on('/q', echoTitle);
      for (let i = 0; i < 10; i += 1) {
        const res = await preview(site.url(`/q?i=${i}`), zoe.key);
        expect(res.status, `fetch ${i}`).toBe(200);
      }
      expect(site.count('/q')).toBe(10);
      const over = await preview(site.url('/q?i=10'), zoe.key);
      expectError(over, 429, 'too_many_requests');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      const kept = await preview(stale, zoe.key);
      expect(kept.status).toBe(200);
      expect(kept.body.data.title).toBe('Stored a week ago');
      expect(site.count('/q')).toBe(10);
      // Cache hits stay free; another host, or another user, still fetches.
      expect((await preview(site.url('/q?i=3'), zoe.key)).body.data.title).toBe('/q?i=3');
      const elsewhere = await preview(other?.url('/q?i=10') ?? '', zoe.key);
      expect(elsewhere.status).toBe(200);
      expect(elsewhere.body.data.title).toBe('/q?i=10');
      expect((await preview(site.url('/q?i=10'), ben.key)).status).toBe(200);
      expect(site.count('/q')).toBe(11);
      // Ten minutes later the host may be fetched again.
      t().clock.advance(10 * MINUTE);
      expect((await preview(site.url('/q?i=11'), zoe.key)).body.data.title).toBe('/q?i=11');
    });
  });

  it('answers 400 invalid_url for malformed, non-http(s), too long, credentialed URLs and other ports', async () => {
    const counted = site.html('/never', page('<title>never</title>'));
    const cases = [
      'ftp://127.0.0.1/file',
      'javascript:alert(1)',
      'data:text/html,<h1>hi</h1>',
      'file:///etc/passwd',
      `http://127.0.0.1/${'a'.repeat(3000)}`,
      counted.replace('http://', 'http://user:pass@'),
      counted.replace('http://', 'http://user@'),
      'http://203.0.113.5:22/',
      'https://198.51.100.7:6379/',
      'not a url',
      'http://',
    ];
    for (const url of cases) expectError(await preview(url), 400, 'invalid_url', 'url');
    expectError(await api().get('/links/by_url', { key: ana.key }), 400, 'invalid_url');
    expectError(await api().get('/links/by_url?url=', { key: ana.key }), 400, 'invalid_url');
    expectError(await api().get('/links/by_url?url=a&url=b', { key: ana.key }), 400, 'invalid_url');
    expect(site.count('/never')).toBe(0);
    // 2048 characters is still fine.
    const ok = site.html('/long', page('<title>Long</title>'));
    const long = `${ok}?${'q'.repeat(2048 - ok.length - 1)}`;
    expect(long.length).toBe(2048);
    expect((await preview(long)).status).toBe(200);
    expectError(await preview(`${long}q`), 400, 'invalid_url');
  });

  it('decodes the url parameter once', async () => {
    const url = site.html('/once', page('<title>Once decoded</title>'));
    const res = await api().get(`/links/by_url?url=${encodeURIComponent(`${url}?q=a%20b`)}`, { key: ana.key });
    expect(res.status).toBe(200);
    expect(res.body.url).toBe(`${url}?q=a%20b`);
  });

  it('needs an API key', async () => {
    const url = site.html('/keyed', page('<title>k</title>'));
    expectError(await api().get(`/links/by_url?url=${encodeURIComponent(url)}`), 401, 'auth_required');
    expectError(
      await api().get(`/links/by_url?url=${encodeURIComponent(url)}`, { key: 'not-a-key' }),
      401,
      'invalid_api_key',
    );
    expect(site.count('/keyed')).toBe(0);
  });
});

describe('link previews: server-side request forgery protection (test switch off)', () => {
  // Previews on, loopback refused: nothing below may leave the process (the fetcher is spied on).
  const h = useTestApp({ LINK_PREVIEWS: 'true' });
  let ana: BuiltUser;
  beforeAll(async () => {
    ana = await buildUser(h.t.ctx);
  });
  afterEach(() => vi.restoreAllMocks());

  it.each([
    'http://127.0.0.1/',
    'http://localhost/',
    'http://LOCALHOST./admin',
    'http://app.localhost/',
    'http://[::1]/',
    'http://169.254.169.254/latest/meta-data',
    'http://10.0.0.1/',
    'http://172.16.5.4/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://[fec0::1]/',
    'http://[ff02::1]/',
    'http://0.0.0.0/',
    'http://255.255.255.255/',
    'http://224.0.0.1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://127.1:8080/',
    'https://127.0.0.1:8443/',
  ])('%s → 400 invalid_url without any connection', async (url) => {
    const httpSpy = vi.spyOn(http, 'request');
    const httpsSpy = vi.spyOn(https, 'request');
    const res = await h.api.get(`/links/by_url?url=${encodeURIComponent(url)}`, { key: ana.key });
    expectError(res, 400, 'invalid_url', 'url');
    expect(httpSpy).not.toHaveBeenCalled();
    expect(httpsSpy).not.toHaveBeenCalled();
    const stored = await h.t.ctx.db.kysely.selectFrom('links').select('id').where('url', '=', url).execute();
    expect(stored).toEqual([]);
  });

  it('refuses a loopback test server when the switch is off', async () => {
    const site = new TestSite();
    await site.start();
    try {
      const url = site.html('/private', page('<title>secret</title>'));
      expectError(
        await h.api.get(`/links/by_url?url=${encodeURIComponent(url)}`, { key: ana.key }),
        400,
        'invalid_url',
      );
      expect(site.count('/private')).toBe(0);
    } finally {
      await site.stop();
    }
  });
});

describe('with link previews turned off (LINK_PREVIEWS=false)', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeAll(async () => {
    t = await createTestApp({ LINK_PREVIEWS: 'false' });
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  it('answers 403 feature_disabled and fetches nothing for messages', async () => {
    const ana = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [ana] });
    const res = await api.get(`/links/by_url?url=${encodeURIComponent('https://example.com/page')}`, { key: ana.key });
    expectError(res, 403, 'feature_disabled');
    const post = await api.post('/messages', {
      key: ana.key,
      body: { group: group.id, data: { text: 'Look https://example.com/page' } },
    });
    expect(post.status).toBe(201);
    await linkPreviewsSettled(t.ctx);
    expect(await t.ctx.db.kysely.selectFrom('links').select('id').execute()).toEqual([]);
  });
});

describe('the link-preview job of a posted message (§6.1, §10.6)', () => {
  const h = useTestApp({ LINK_PREVIEW_ALLOW_LOOPBACK: 'true' });
  const site = new TestSite();
  let ana: BuiltUser;
  let groupId: string;
  const t = (): TestApp => h.t;

  beforeAll(async () => {
    await site.start();
    ana = await buildUser(t().ctx);
    groupId = (await buildGroup(t().ctx, { members: [ana] })).id;
  });
  afterAll(() => site.stop());

  const post = (text: string, extra: Record<string, unknown> = {}) =>
    h.api.post('/messages', { key: ana.key, body: { group: groupId, data: { text }, ...extra } });
  const jobsFor = (url: string) =>
    t()
      .ctx.db.kysely.selectFrom('jobs')
      .select(['status', 'attempts', 'last_error'])
      .where('name', '=', 'link-preview')
      .where('payload', '=', JSON.stringify({ url }))
      .execute();
  const linkOf = (url: string) =>
    t().ctx.db.kysely.selectFrom('links').selectAll().where('url', '=', url).executeTakeFirst();
  const titleOf = (row: { data: string } | undefined) => (JSON.parse(row?.data ?? '{}') as { title?: string }).title;

  it('is written with the message and fetches the preview when it runs', async () => {
    const url = site.html('/job/plain', page('<title>From the job</title>'));
    const res = await post(`have a look: ${url}`);
    expect(res.status, res.text).toBe(201);
    // Queued in the message's transaction; nothing fetched until the job runs.
    expect(await jobsFor(url)).toEqual([{ status: 'queued', attempts: 0, last_error: null }]);
    expect(site.count('/job/plain')).toBe(0);
    await t().ctx.jobs.drain(['link-preview']);
    expect(titleOf(await linkOf(url))).toBe('From the job');
    expect(await jobsFor(url)).toEqual([{ status: 'done', attempts: 1, last_error: null }]);
    expect(site.count('/job/plain')).toBe(1);
  });

  it('queues nothing for a message that was not written, or whose preview is fresh', async () => {
    const url = site.html('/job/none', page('<title>Never</title>'));
    const refused = await post(url, { parent: '00000000-0000-4000-8000-000000000000' });
    expect(refused.status).toBe(400);
    expect(await jobsFor(url)).toEqual([]);

    const fresh = site.html('/job/fresh', page('<title>Fresh</title>'));
    expect((await h.api.get(`/links/by_url?url=${encodeURIComponent(fresh)}`, { key: ana.key })).status).toBe(200);
    expect((await post(fresh)).status).toBe(201);
    expect(await jobsFor(fresh)).toEqual([]);
    expect(site.count('/job/fresh')).toBe(1);
  });

  it('retries a failed fetch after the backoff, and stores the preview then', async () => {
    let calls = 0;
    const url = site.on('/job/flaky', (_req, res) => {
      calls += 1;
      if (calls === 1) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(page('<title>Second time lucky</title>'));
    });
    expect((await post(url)).status).toBe(201);
    await linkPreviewsSettled(t().ctx);
    // The failure is stored as a failed preview, as a `by_url` fetch would store it…
    expect(await linkOf(url)).toMatchObject({ failed: 1 });
    expect(await jobsFor(url)).toEqual([
      { status: 'queued', attempts: 1, last_error: 'The link preview failed: HTTP 503' },
    ]);
    // …and the job runs again once its first backoff (10 s) has passed, although that failure is recent.
    t().clock.advance(10_000);
    await linkPreviewsSettled(t().ctx);
    const link = await linkOf(url);
    expect(link?.failed).toBe(0);
    expect(titleOf(link)).toBe('Second time lucky');
    expect(await jobsFor(url)).toEqual([{ status: 'done', attempts: 2, last_error: null }]);
    expect(calls).toBe(2);
  });

  it('survives a restart between the commit and the fetch', async () => {
    const url = site.html('/job/restart', page('<title>After the restart</title>'));
    expect((await post(url)).status).toBe(201);
    // The process "dies" before its queue ran: a new one on the same database finds the job.
    const { closeContext, createContext } = await import('../../setup.js');
    const restarted = await createContext(t().config, { db: t().ctx.db, clock: t().clock, log: t().ctx.log as never });
    try {
      await restarted.jobs.drain(['link-preview']);
      expect(titleOf(await linkOf(url))).toBe('After the restart');
      expect(await jobsFor(url)).toEqual([{ status: 'done', attempts: 1, last_error: null }]);
    } finally {
      await restarted.jobs.stop();
      await closeContext(restarted, { database: false });
    }
  });
});
