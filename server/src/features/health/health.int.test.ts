import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { createTestApp, type TestApp, useTestApp } from '../../../test/harness.js';

// While the server drains on SIGTERM, every request, these probes included, is answered 503 by
// app.ts (tested in http/http-layer.int.test.ts), so a balancer stops sending traffic at once.
describe('GET /api/health and /api/health/ready', () => {
  const test = useTestApp();

  it('answers liveness to anyone, without a key', async () => {
    const res = await test.api.get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers ready when the database (and Redis, in a scale-out run) answers', async () => {
    const res = await test.api.get('/health/ready');
    expect(res.status).toBe(200);
    const redis = test.t.config.redisUrl === null ? {} : { redis: 'ok' };
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', ...redis } });
  });

  it('ignores a key, even a wrong one', async () => {
    expect((await test.api.get('/health/ready', { key: 'not-a-key' })).status).toBe(200);
  });
});

describe('readiness without a database', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close().catch(() => undefined));

  it('answers 503 service_unavailable once the database is gone, while liveness still answers', async () => {
    await t.ctx.db.close();
    const api = new ApiClient(t.app);
    const ready = await api.get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.code).toBe('service_unavailable');
    expect(ready.headers['retry-after']).toBe('5');
    expect((await api.get('/health')).status).toBe(200);
  });
});
