import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { createTestApp, type TestApp, useTestApp } from '../../../test/harness.js';
import { freePort } from '../../../test/ports.js';
import { s3Env } from '../../../test/s3.js';

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

  it('answers ready when the database (and Redis and the bucket, in a scale-out run) answer', async () => {
    const res = await test.api.get('/health/ready');
    expect(res.status).toBe(200);
    const redis = test.t.config.redisUrl === null ? {} : { redis: 'ok' };
    const bucket = test.t.config.s3 === null ? {} : { bucket: 'ok' };
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', ...redis, ...bucket } });
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

describe('readiness with an S3 bucket that does not answer', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(s3Env(`http://127.0.0.1:${await freePort()}`, 'kith-nowhere'));
  });
  afterAll(() => t.close());

  it('answers 503 naming the bucket, while liveness still answers', async () => {
    const api = new ApiClient(t.app);
    const ready = await api.get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ code: 'service_unavailable', message: 'The bucket does not answer' });
    expect((await api.get('/health')).status).toBe(200);
  });
});
