import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from '../../../test/client.js';
import { buildGroup, buildUser, DEFAULT_PASSWORD } from '../../../test/factories.js';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import { userFromMediaCookie } from './media-cookie.js';
import { MEDIA_COOKIE } from '../../http/cookies.js';

const DAY = 24 * 60 * 60 * 1000;

function setCookie(res: ApiResponse): string | undefined {
  const header = res.headers['set-cookie'];
  return Array.isArray(header) ? header[0] : (header as string | undefined);
}

/** The `name=value` part of a Set-Cookie header, as a browser would send it back. */
function cookiePair(res: ApiResponse): string {
  const header = setCookie(res);
  if (header === undefined) throw new Error('no Set-Cookie');
  return header.split(';', 1)[0] ?? '';
}

describe('media cookie (docs/api §1.9)', () => {
  let t: TestApp;
  let api: ApiClient;
  const holder = (cookie: string) => userFromMediaCookie(t.ctx, { headers: { cookie } } as FastifyRequest);

  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  it('is set by login with the contract attributes and stands for the user', async () => {
    const ana = await buildUser(t.ctx);
    const res = await api.post('/login', { body: { login: ana.user.login, password: DEFAULT_PASSWORD } });
    expect(res.status).toBe(200);
    const header = setCookie(res) ?? '';
    expect(header).toMatch(new RegExp(`^${MEDIA_COOKIE}=[^;]+; HttpOnly; SameSite=Lax; Path=/$`));
    expect(header).not.toContain('Max-Age');
    expect((await holder(cookiePair(res)))?.id).toBe(ana.user.id);
  });

  it('is not set by a failed login', async () => {
    const ana = await buildUser(t.ctx);
    const res = await api.post('/login', { body: { login: ana.user.login, password: 'wrong password' } });
    expect(res.status).toBe(401);
    expect(setCookie(res)).toBeUndefined();
  });

  it('is set by signup', async () => {
    const owner = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [owner] });
    const res = await api.post('/signup', {
      body: { login: 'cookie-signup@example.org', password: 'password123', invite_key: group.secret_key },
    });
    expect(res.status).toBe(200);
    expect((await holder(cookiePair(res)))?.login).toBe('cookie-signup@example.org');
  });

  it('is given to a header-authenticated caller without one, and kept while it is fresh', async () => {
    const ana = await buildUser(t.ctx);
    const first = await api.get('/me', { key: ana.key });
    expect((await holder(cookiePair(first)))?.id).toBe(ana.user.id);
    const again = await api.get('/me', { key: ana.key, headers: { cookie: cookiePair(first) } });
    expect(setCookie(again)).toBeUndefined();
    // Another user's cookie is replaced by the caller's own.
    const ben = await buildUser(t.ctx);
    const swapped = await api.get('/me', { key: ben.key, headers: { cookie: cookiePair(first) } });
    expect((await holder(cookiePair(swapped)))?.id).toBe(ben.user.id);
    // Failed requests set nothing; neither do requests without a key.
    expect(setCookie(await api.get('/groups/00000000-0000-4000-8000-000000000000', { key: ana.key }))).toBeUndefined();
    expect(setCookie(await api.get('/info'))).toBeUndefined();
  });

  it('is given again for a minute to a caller that keeps no cookies, then made anew; never for an old key', async () => {
    const ana = await buildUser(t.ctx);
    const first = cookiePair(await api.get('/me', { key: ana.key }));
    t.clock.advance(30 * 1000);
    expect(cookiePair(await api.get('/me', { key: ana.key }))).toBe(first);
    t.clock.advance(31 * 1000);
    const later = cookiePair(await api.get('/me', { key: ana.key }));
    expect(later).not.toBe(first);
    expect((await holder(later))?.id).toBe(ana.user.id);
    // Within the minute again, but for a new key: the cookie of the old key is not given.
    const reset = await api.post(`/users/${ana.user.id}/reset-api-key`, { key: ana.key });
    expect(reset.status).toBe(200);
    const newKey: string = reset.body.apiKey;
    const afterReset = cookiePair(await api.get('/me', { key: newKey }));
    expect(afterReset).not.toBe(later);
    expect(await holder(later)).toBeNull();
    expect((await holder(afterReset))?.id).toBe(ana.user.id);
  });

  it('is renewed after a day and refused after 7 days', async () => {
    const ana = await buildUser(t.ctx);
    const first = await api.get('/me', { key: ana.key });
    const cookie = cookiePair(first);
    t.clock.advance(DAY + 1000);
    const renewed = await api.get('/me', { key: ana.key, headers: { cookie } });
    expect(cookiePair(renewed)).not.toBe(cookie);
    expect((await holder(cookie))?.id).toBe(ana.user.id);
    t.clock.advance(6 * DAY);
    expect(await holder(cookie)).toBeNull();
    expect((await holder(cookiePair(renewed)))?.id).toBe(ana.user.id);
  });

  it('is refused when tampered with or unknown', async () => {
    const ana = await buildUser(t.ctx);
    const pair = cookiePair(await api.get('/me', { key: ana.key }));
    const ben = await buildUser(t.ctx);
    expect(await holder(pair.replace(ana.user.id, ben.user.id))).toBeNull();
    expect(await holder(`${pair.slice(0, -1)}${pair.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    expect(await holder(`${MEDIA_COOKIE}=nonsense`)).toBeNull();
    expect(await holder('')).toBeNull();
  });

  it('stops working when the key is reset, and the reset answer carries a new one', async () => {
    const ana = await buildUser(t.ctx);
    const old = cookiePair(await api.get('/me', { key: ana.key }));
    const reset = await api.post(`/users/${ana.user.id}/reset-api-key`, { key: ana.key, headers: { cookie: old } });
    expect(reset.status).toBe(200);
    expect(await holder(old)).toBeNull();
    expect((await holder(cookiePair(reset)))?.id).toBe(ana.user.id);
  });

  it('is cleared and refused when the account is deleted', async () => {
    const ana = await buildUser(t.ctx);
    const cookie = cookiePair(await api.get('/me', { key: ana.key }));
    const res = await api.delete(`/users/${ana.user.id}`, { key: ana.key, headers: { cookie } });
    expect(res.status).toBe(204);
    expect(setCookie(res)).toMatch(new RegExp(`^${MEDIA_COOKIE}=; Max-Age=0`));
    expect(await holder(cookie)).toBeNull();
  });
});

describe('media cookie under a base path over https', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ BASE_PATH: '/family', PUBLIC_URL: 'https://kith.test/family' });
  });
  afterAll(() => t.close());

  it('is scoped to the base path and marked Secure', async () => {
    const ana = await buildUser(t.ctx);
    const res = await new ApiClient(t.app, '/family/api').get('/me', { key: ana.key });
    expect(setCookie(res)).toMatch(/; Path=\/family\/; Secure$/);
  });
});
