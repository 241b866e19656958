import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { expectError } from '../../../test/expect.js';
import { buildGroup, buildUser } from '../../../test/factories.js';
import { useTestApp } from '../../../test/harness.js';
import { serve } from '../../../test/sse.js';
import { buildMetricsApp } from './routes.js';

const TOKEN = 'metrics-token-metrics-token-metrics-token-0123';
const SOME_ID = '0c8a7b4e-5d3f-4a1b-9c2d-3e4f5a6b7c8d';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Reads the Prometheus text format strictly enough to catch a malformed answer: every line is a
 * HELP, a TYPE or a sample `name{label="value",…} number`, and every sample belongs to a family
 * whose TYPE came before it.
 */
function parseExposition(text: string): Sample[] {
  const typed = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type !== null) {
      typed.add(type[1] ?? '');
      continue;
    }
    if (/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/.test(line)) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|NaN|[+-]Inf)$/i.exec(line);
    expect(sample, `not a Prometheus line: ${line}`).not.toBeNull();
    const name = sample?.[1] ?? '';
    const family = [...typed].find(
      (f) => name === f || /^_(bucket|sum|count|total|created)$/.test(name.slice(f.length)),
    );
    expect(family, `sample before its TYPE: ${line}`).toBeDefined();
    const labels: Record<string, string> = {};
    for (const pair of (sample?.[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] ?? ''] = pair[2] ?? '';
    }
    samples.push({ name, labels, value: Number(sample?.[3]) });
  }
  return samples;
}

/** The value of the one sample of `name` whose labels include `labels` (undefined when absent). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
  );
  expect(found.length, `${name} ${JSON.stringify(labels)}`).toBeLessThanOrEqual(1);
  return found[0]?.value;
}

describe('GET /metrics without METRICS_TOKEN (the default)', () => {
  const test = useTestApp();

  it('answers 404, with or without a token, and keeps no metrics', async () => {
    expect(test.t.ctx.metrics).toBeNull();
    const root = new ApiClient(test.t.app, '');
    expectError(await root.get('/metrics'), 404, 'not_found');
    expectError(await root.get('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } }), 404, 'not_found');
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const test = useTestApp({ METRICS_TOKEN: TOKEN });
  const server = serve(() => test.t);

  const scrape = (authorization: string | null = `Bearer ${TOKEN}`) =>
    new ApiClient(test.t.app, '').get('/metrics', { headers: authorization === null ? {} : { authorization } });

  const samples = async () => {
    const res = await scrape();
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return { text: res.text, samples: parseExposition(res.text) };
  };

  it('needs the token: missing, wrong or in another scheme answers 401', async () => {
    for (const header of [null, 'Bearer wrong-token', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, TOKEN]) {
      const res = await scrape(header);
      expectError(res, 401, 'auth_required');
      expect(res.headers['www-authenticate']).toContain('Bearer');
      expect(res.text).not.toContain('kith_');
    }
  });

  it('answers the Prometheus text format with the process and database series', async () => {
    const { samples: all } = await samples();
    expect(valueOf(all, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(valueOf(all, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(valueOf(all, 'kith_database_size_bytes')).toBeGreaterThan(0);
    expect(valueOf(all, 'kith_files')).toBe(0);
    expect(valueOf(all, 'kith_mail_queue', { state: 'pending' })).toBe(0);
  });

  it('counts requests by route pattern and status class, never by URL, and not the scrapes', async () => {
    const member = await buildUser(test.t.ctx);
    await buildGroup(test.t.ctx, { members: [member] });
    const before = await samples();
    const labels = { method: 'GET', route: '/api/messages/:id', status: '4xx' };
    const was = valueOf(before.samples, 'kith_http_requests_total', labels) ?? 0;
    for (let i = 0; i < 3; i += 1) {
      const res = await test.t.app.inject({
        method: 'GET',
        url: `/api/messages/${SOME_ID}`,
        headers: { 'x-auth-token': member.key },
      });
      expect(res.statusCode).toBe(404);
    }
    const me = await test.t.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-auth-token': member.key } });
    expect(me.statusCode).toBe(200);
    await test.t.app.inject({ method: 'GET', url: `/api/no-such-route/${SOME_ID}` });

    const after = await samples();
    expect(valueOf(after.samples, 'kith_http_requests_total', labels)).toBe(was + 3);
    expect(valueOf(after.samples, 'kith_http_requests_total', { method: 'GET', route: '/api/me', status: '2xx' })).toBe(
      1,
    );
    expect(
      valueOf(after.samples, 'kith_http_request_duration_seconds_count', { method: 'GET', route: '/api/messages/:id' }),
    ).toBe(was + 3);
    expect(
      valueOf(after.samples, 'kith_http_requests_total', { route: 'unmatched', status: '4xx' }),
    ).toBeGreaterThanOrEqual(1);
    // No id, key or raw URL in any label; the scrapes themselves are not counted.
    expect(after.text).not.toContain(SOME_ID);
    expect(after.text).not.toContain(member.key);
    expect(after.samples.filter((s) => s.labels.route === '/metrics')).toEqual([]);
  });

  it('counts a failed job by its name, and the mail given up in the mail queue', async () => {
    const { ctx } = test.t;
    const before = await samples();
    const was = valueOf(before.samples, 'kith_job_failures_total', { job: 'send-mail' }) ?? 0;
    // A mail sealed with another key can never be opened: a permanent failure, given up at once.
    await ctx.jobs.enqueue(ctx.db.kysely, 'send-mail', { kind: 'test', sealed: 'not-a-sealed-mail' });
    await ctx.jobs.drain(['send-mail']);
    // The queue gauges are read from the database at most every 10 s of the app's clock.
    test.t.clock.advance(11_000);
    const after = await samples();
    expect(valueOf(after.samples, 'kith_job_failures_total', { job: 'send-mail' })).toBe(was + 1);
    expect(valueOf(after.samples, 'kith_jobs_given_up_total', { job: 'send-mail' })).toBe(was + 1);
    expect(valueOf(after.samples, 'kith_jobs', { job: 'send-mail', state: 'failed' })).toBe(1);
    expect(valueOf(after.samples, 'kith_mail_queue', { state: 'failed' })).toBe(1);
  });

  it('serves a worker process its metrics alone (no API) with the same token rule', async () => {
    const worker = await buildMetricsApp(test.t.ctx);
    try {
      const root = new ApiClient(worker, '');
      expectError(await root.get('/metrics'), 401, 'auth_required');
      const res = await root.get('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      expect(valueOf(parseExposition(res.text), 'kith_live_streams')).toBe(0);
      expectError(await root.get('/api/me'), 404, 'not_found');
    } finally {
      await worker.close();
    }
  });

  it('follows the live streams as they open and close', async () => {
    await server.listen();
    const member = await buildUser(test.t.ctx);
    const streamsNow = async () => valueOf((await samples()).samples, 'kith_live_streams');
    expect(await streamsNow()).toBe(0);
    const reader = await server.open(member.key);
    expect(await streamsNow()).toBe(1);
    reader.close();
    await expect.poll(streamsNow).toBe(0);
  });
});
