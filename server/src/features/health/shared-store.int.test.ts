import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import { freePort } from '../../../test/ports.js';

// REDIS_URL (issue 19): the readiness probe checks Redis; the throttle counts of two server
// processes are one count; and with Redis gone, throttled requests are answered 503 at once while
// the others keep working. On the machine's real Redis.
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// The two apps' keys: their own, shared by both (as one instance's processes share theirs).
const REDIS_KEY_PREFIX = `kith-test.${process.pid}.${randomBytes(6).toString('hex')}`;

describe('two server processes sharing one Redis', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp({ REDIS_URL, REDIS_KEY_PREFIX });
    b = await createTestApp({ REDIS_URL, REDIS_KEY_PREFIX });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('are ready when the database and Redis answer', async () => {
    const res = await new ApiClient(a.app).get('/health/ready');
    expect(res.status).toBe(200);
    const bucket = a.config.s3 === null ? {} : { bucket: 'ok' };
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'ok', ...bucket } });
  });

  it('count one signup allowance for an address, whichever process answers', async () => {
    // A fresh address per run: the counts live in Redis, beyond this test's lifetime.
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const apis = [new ApiClient(a.app), new ApiClient(b.app)];
    await a.ctx.limiter.reset(`signupPerIp|${ip}`);
    const body = { login: 'x@example.org', password: 'password123', invite_key: 'no-such-key' };
    // Ten signups an hour per address (docs/api §1.6): five through each process.
    for (let i = 0; i < 10; i++) {
      const res = await apis[i % 2]!.post('/signup', { body, ip });
      expect(res.status).not.toBe(429);
    }
    for (const api of apis) expect((await api.post('/signup', { body, ip })).status).toBe(429);
    await a.ctx.limiter.reset(`signupPerIp|${ip}`);
  });
});

describe('a server whose Redis is gone', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
  });
  afterAll(() => t.close());

  it('answers throttled requests 503 at once, and the others as usual', async () => {
    const api = new ApiClient(t.app);
    const login = await api.post('/login', { body: { login: 'ana@example.org', password: 'password123' } });
    expect(login.status).toBe(503);
    expect(login.body.code).toBe('service_unavailable');
    expect(login.headers['retry-after']).toBe('5');
    expect((await api.get('/info')).status).toBe(200);
    expect((await api.get('/health')).status).toBe(200);
    const ready = await api.get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.message).toMatch(/redis/);
  });
});
