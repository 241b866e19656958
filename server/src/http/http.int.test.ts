import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { closeContext, createContext } from '../setup.js';
import type { AppContext } from '../context.js';
import { ApiClient, type ApiResponse } from '../../test/client.js';
import { buildGroup, buildUser, type BuiltUser } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { redactUrl } from './redact.js';
import { expectEnvelope, expectError, UUID_V4 } from '../../test/expect.js';

const MIB = 1024 * 1024;
const PLACEHOLDER_TEXT = 'The web client has not been built yet';

/** The methods listed by an `Allow` header. */
function allowed(res: ApiResponse): string[] {
  return String(res.headers.allow ?? '')
    .split(',')
    .map((m) => m.trim().toUpperCase())
    .filter((m) => m !== '');
}

function expectApiHeaders(res: ApiResponse): void {
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('same-origin');
  expect(String(res.headers['x-request-id'])).toMatch(UUID_V4);
}

/** A JSON body of exactly `bytes` bytes (UTF-8). */
function bodyOfSize(bytes: number, fields: Record<string, string>): string {
  const base = JSON.stringify({ ...fields, pad: '' });
  const pad = 'x'.repeat(bytes - Buffer.byteLength(base));
  const body = JSON.stringify({ ...fields, pad });
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

describe('HTTP conventions (docs/api §1)', () => {
  let t: TestApp;
  let api: ApiClient;
  let ana: BuiltUser;
  let ben: BuiltUser;

  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
    ana = await buildUser(t.ctx, { name: 'Ana', login: 'ana@example.org' });
    ben = await buildUser(t.ctx, { name: 'Ben' });
  });
  afterAll(() => t.close());

  describe('error envelope (§1.5)', () => {
    const cases: [string, number, string, () => Promise<ApiResponse>][] = [
      ['no key', 401, 'auth_required', () => api.get('/me')],
      ['a bad key', 401, 'invalid_api_key', () => api.get('/me', { key: 'not-a-key' })],
      [
        'a hidden group',
        404,
        'not_found',
        () => api.get('/groups/6f1d2c3b-4a59-4e8d-9c7b-6a5f4e3d2c1b', { key: ana.key }),
      ],
      ['an unknown route', 404, 'route_not_found', () => api.get('/nothing/here')],
      ['a wrong method', 405, 'method_not_allowed', () => api.delete('/me', { key: ana.key })],
      ['a body that is not JSON', 400, 'invalid_json', () => api.post('/login', { body: '{nope' })],
      ['a body over 1 MiB', 413, 'payload_too_large', () => api.post('/login', { body: 'x'.repeat(MIB + 1) })],
      ['a missing field', 400, 'missing_field', () => api.post('/login', { body: {} })],
      [
        'a wrong login',
        401,
        'invalid_credentials',
        () => api.post('/login', { body: { login: 'ana@example.org', password: 'wrong password' } }),
      ],
      ['an invalid name', 400, 'invalid_name', () => api.post('/groups', { key: ana.key, body: { name: '<b>' } })],
      [
        'an unknown invite key',
        400,
        'invalid_invite_key',
        () => api.post('/groups/invitation/no-such-key', { key: ana.key, body: {} }),
      ],
      [
        'a signup without invite key',
        400,
        'invite_key_required',
        () => api.post('/signup', { body: { login: 'x@example.org', password: 'long enough' }, ip: '10.9.0.1' }),
      ],
      [
        'editing someone else',
        403,
        'forbidden',
        () => api.put(`/users/${ben.user.id}`, { key: ana.key, body: { name: 'Hacked' } }),
      ],
      [
        'a bad setting',
        400,
        'invalid_field',
        () => api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { notification_emails: 'always' } } }),
      ],
    ];

    it.each(cases)(
      'is code, message, error (same text) and maybe field, for %s',
      async (_label, status, code, call) => {
        const res = await call();
        expectError(res, status, code);
        expectApiHeaders(res);
      },
    );

    it('never echoes secrets or ids sent in the request', async () => {
      const res = await api.post('/groups/invitation/secret-looking-key-123', { key: ana.key, body: {} });
      expectError(res, 400, 'invalid_invite_key');
      expect(res.text).not.toContain('secret-looking-key-123');
      expect(res.text).not.toContain(ana.key);
    });

    it('answers a malformed URL in the envelope too', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/groups/%E0%A4%A',
        headers: { 'x-auth-token': ana.key },
      });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expectEnvelope({ status: res.statusCode, headers: res.headers, text: res.body });
    });

    it('answers an over-long path parameter in the envelope too', async () => {
      const res = await api.get(`/groups/${'a'.repeat(300)}`, { key: ana.key });
      expectError(res, 404, 'not_found');
    });
  });

  describe('unknown paths and methods', () => {
    it.each([
      ['GET', '/nope'],
      ['POST', '/nope'],
      ['PUT', '/nope'],
      ['DELETE', '/nope'],
      ['GET', '/groups/6f1d2c3b-4a59-4e8d-9c7b-6a5f4e3d2c1b/members/extra'],
      ['POST', '/me/settings/deep/path'],
      ['GET', '/info/extra'],
    ])('%s /api%s answers 404 route_not_found in JSON', async (method, p) => {
      const res = await api.request(method, p, { key: ana.key });
      expectError(res, 404, 'route_not_found');
      expectApiHeaders(res);
    });

    it('answers the bare /api path as an API path: route_not_found with the API headers', async () => {
      const res = await api.get('', { key: ana.key });
      expectError(res, 404, 'route_not_found');
      expectApiHeaders(res);
    });

    it('answers route_not_found to anyone, with or without a key', async () => {
      expectError(await api.get('/nope'), 404, 'route_not_found');
      expectError(await api.post('/nope', { body: { a: 1 } }), 404, 'route_not_found');
    });

    it.each([
      ['DELETE', '/me', ['GET']],
      ['POST', '/info', ['GET']],
      ['PUT', '/info', ['GET']],
      ['DELETE', '/groups/6f1d2c3b-4a59-4e8d-9c7b-6a5f4e3d2c1b', ['GET', 'PUT']],
      ['GET', '/groups/invitation/some-key', ['POST']],
      ['GET', '/login', ['POST']],
    ])('%s /api%s answers 405 method_not_allowed with an Allow header', async (method, p, expected) => {
      const res = await api.request(method, p, { key: ana.key });
      expectError(res, 405, 'method_not_allowed');
      const methods = allowed(res);
      for (const m of expected) expect(methods).toContain(m);
      expect(methods).not.toContain(method);
      expectApiHeaders(res);
    });
  });

  describe('request bodies (§1.3)', () => {
    it.each([
      ['not JSON', '{"name": '],
      ['plain text', 'hello'],
      ['a JSON array', '[{"name":"x"}]'],
      ['a JSON string', '"name"'],
      ['a JSON number', '42'],
      ['JSON null', 'null'],
      ['JSON true', 'true'],
    ])('answers 400 invalid_json to a body that is %s', async (_label, body) => {
      const before = await t.ctx.db.kysely.selectFrom('groups').select('id').execute();
      expectError(await api.post('/groups', { key: ana.key, body }), 400, 'invalid_json');
      expectError(await api.post('/login', { body }), 400, 'invalid_json');
      expect(await t.ctx.db.kysely.selectFrom('groups').select('id').execute()).toHaveLength(before.length);
    });

    /** The name a group has in the database, to show that a refused body changed nothing. */
    const storedGroupName = async (id: string): Promise<string> =>
      (await t.ctx.db.kysely.selectFrom('groups').select('name').where('id', '=', id).executeTakeFirstOrThrow()).name;

    it('answers 400 invalid_json to a body that is not valid UTF-8, and stores nothing', async () => {
      const group = await buildGroup(t.ctx, { members: [ana] });
      const bad = [
        Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), // {"name":"\xff\xfe"}
        Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xc3]), Buffer.from('"}')]), // cut sequence
        Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), // lone surrogate
        Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]), // overlong '/'
      ];
      const groupsBefore = await t.ctx.db.kysely.selectFrom('groups').select('id').execute();
      for (const payload of bad) {
        const calls = [
          { method: 'POST' as const, url: '/api/groups' },
          { method: 'PUT' as const, url: `/api/groups/${group.id}` },
          { method: 'PUT' as const, url: `/api/users/${ana.user.id}` },
          { method: 'POST' as const, url: '/api/login' },
        ];
        for (const call of calls) {
          const res = await t.app.inject({
            ...call,
            payload,
            headers: { 'content-type': 'application/json', 'x-auth-token': ana.key },
          });
          expect(res.statusCode, `${call.method} ${call.url}`).toBe(400);
          expect(JSON.parse(res.body)).toMatchObject({ code: 'invalid_json' });
        }
      }
      expect(await t.ctx.db.kysely.selectFrom('groups').select('id').execute()).toHaveLength(groupsBefore.length);
      expect(await storedGroupName(group.id)).toBe(group.name);
      const me = await t.ctx.db.kysely
        .selectFrom('users')
        .select('name')
        .where('id', '=', ana.user.id)
        .executeTakeFirstOrThrow();
      expect(me.name).not.toContain('\ufffd');
      // Valid multi-byte UTF-8 (and a byte order mark) still reads.
      const ok = await t.app.inject({
        method: 'PUT',
        url: `/api/groups/${group.id}`,
        payload: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Café 家族 🎉"}')]),
        headers: { 'content-type': 'application/json', 'x-auth-token': ana.key },
      });
      expect(ok.statusCode).toBe(200);
      expect(JSON.parse(ok.body)).toMatchObject({ name: 'Café 家族 🎉' });
    });

    it('answers 400 invalid_json to a body nested deeper than 64 levels, and changes nothing', async () => {
      const group = await buildGroup(t.ctx, { members: [ana] });
      const deep = `{"name":"Renamed","extra":${'['.repeat(64)}${']'.repeat(64)}}`;
      expectError(await api.put(`/groups/${group.id}`, { key: ana.key, body: deep }), 400, 'invalid_json');
      expect(await storedGroupName(group.id)).toBe(group.name);
      // One level less is an ordinary body.
      const fine = `{"name":"Renamed","extra":${'['.repeat(62)}${']'.repeat(62)}}`;
      expect((await api.put(`/groups/${group.id}`, { key: ana.key, body: fine })).status).toBe(200);
    });

    it('counts an empty body as {}', async () => {
      // With a JSON content type, with none, and blank.
      expectError(await api.post('/login', { body: '' }), 400, 'missing_field', 'login');
      expectError(await api.post('/login', { body: '  \n ' }), 400, 'missing_field', 'login');
      const bare = await t.app.inject({ method: 'POST', url: '/api/login' });
      expect(bare.statusCode).toBe(400);
      expect(JSON.parse(bare.body)).toMatchObject({ code: 'missing_field', field: 'login' });
      const res = await api.post('/login', { body: '' });
      expect(res.body.message).toBe('Login cannot be empty');
      // A call without a body at all works where the body is optional.
      const group = await buildGroup(t.ctx, { members: [ana] });
      expect((await api.post(`/groups/${group.id}/reset-invite-key`, { key: ana.key, body: '' })).status).toBe(200);
    });

    it.each([
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/octet-stream',
      'text/html; charset=utf-8',
    ])('parses a JSON body sent as %s', async (contentType) => {
      const login = await api.post('/login', {
        body: JSON.stringify({ login: 'ana@example.org', password: ana.password }),
        headers: { 'content-type': contentType },
      });
      expect(login.status, login.text).toBe(200);
      expect(login.body.api_key).toBe(ana.key);
      const created = await api.post('/groups', {
        key: ana.key,
        body: JSON.stringify({ name: 'Plain' }),
        headers: { 'content-type': contentType },
      });
      expect(created.status).toBe(201);
      expect(created.body.name).toBe('Plain');
    });

    it('parses a JSON body sent without any Content-Type', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/login',
        payload: Buffer.from(JSON.stringify({ login: 'ana@example.org', password: ana.password })),
      });
      expect(res.headers['content-type'] ?? '').toMatch(/^application\/json/);
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.body).api_key).toBe(ana.key);
    });

    it('answers 413 payload_too_large over 1 MiB, and reads a body of exactly 1 MiB', async () => {
      const fields = { login: 'ana@example.org', password: ana.password };
      const exact = await api.post('/login', { body: bodyOfSize(MIB, fields) });
      expect(exact.status, exact.text).toBe(200);
      expect(exact.body.api_key).toBe(ana.key);

      const over = await api.post('/login', { body: bodyOfSize(MIB + 1, fields) });
      expectError(over, 413, 'payload_too_large');
      expectApiHeaders(over);
      const asText = await api.post('/groups', {
        key: ana.key,
        body: bodyOfSize(2 * MIB, { name: 'Big' }),
        headers: { 'content-type': 'text/plain' },
      });
      expectError(asText, 413, 'payload_too_large');
    });

    it('ignores unknown fields', async () => {
      const created = await api.post('/groups', {
        key: ana.key,
        body: { name: 'Extra', color: 'blue', nested: { deep: [1, 2] }, children: [], author: 'x' },
      });
      expect(created.status).toBe(201);
      expect(created.body).not.toHaveProperty('color');
      const login = await api.post('/login', {
        body: { login: 'ana@example.org', password: ana.password, remember: true, extra: null },
      });
      expect(login.status).toBe(200);
    });

    it('accepts an id given as {"id": "..."} as well as a string', async () => {
      const dee = await buildUser(t.ctx);
      const g1 = await buildGroup(t.ctx, { members: [dee] });
      t.clock.advance(1000);
      const g2 = await buildGroup(t.ctx, { members: [dee] });
      const other = await buildGroup(t.ctx, { members: [ben] });

      const asObject = await api.put(`/users/${dee.user.id}`, {
        key: dee.key,
        body: { data: { default_group: { id: g2.id, entityType: 'group', name: 'whatever' } } },
      });
      expect(asObject.status, asObject.text).toBe(200);
      expect(asObject.body.data.default_group).toBe(g2.id);

      const asString = await api.put(`/users/${dee.user.id}`, {
        key: dee.key,
        body: { data: { default_group: g1.id } },
      });
      expect(asString.status).toBe(200);
      expect(asString.body.data.default_group).toBe(g1.id);

      // The object form is really read: a group the caller is not in is refused.
      const refused = await api.put(`/users/${dee.user.id}`, {
        key: dee.key,
        body: { data: { default_group: { id: other.id } } },
      });
      expectError(refused, 400, 'invalid_field', 'data.default_group');
      expect((await api.get('/me', { key: dee.key })).body.data.default_group).toBe(g1.id);
    });
  });

  describe('headers on API answers (§1.4)', () => {
    it('sets no-store, nosniff, same-origin and a request id on successes and errors', async () => {
      const answers = [
        await api.get('/info'),
        await api.get('/me', { key: ana.key }),
        await api.post('/groups', { key: ana.key, body: { name: 'Headers' } }),
        await api.get('/me'),
        await api.get('/nope'),
        await api.delete('/me', { key: ana.key }),
        await api.post('/login', { body: '[]' }),
      ];
      for (const res of answers) expectApiHeaders(res);
      const ids = answers.map((r) => r.headers['x-request-id']);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('lets a section choose another Cache-Control (profiles are private, max-age=300)', async () => {
      const res = await api.get(`/users/${ana.user.id}`, { key: ana.key });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('private, max-age=300');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });

    it('accepts and ignores the X-NOCACHE request header', async () => {
      const plain = await api.get('/me', { key: ana.key });
      const nocache = await api.get('/me', { key: ana.key, headers: { 'X-NOCACHE': '1' } });
      expect(nocache.status).toBe(200);
      expect(nocache.body).toEqual(plain.body);
      expectApiHeaders(nocache);
      const post = await api.post('/groups', {
        key: ana.key,
        body: { name: 'NoCache' },
        headers: { 'X-NOCACHE': 'true' },
      });
      expect(post.status).toBe(201);
    });

    it('makes its own request id rather than trusting one sent by the client', async () => {
      const res = await api.get('/info', { headers: { 'X-Request-Id': 'client-chosen\nforged' } });
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).not.toBe('client-chosen\nforged');
      expect(String(res.headers['x-request-id'])).toMatch(UUID_V4);
    });
  });

  describe('web client fallback without a built client', () => {
    it.each(['/', '/groups/abc', '/messages/x/y', '/login', '/invitation/some-key'])(
      'GET %s answers the placeholder page',
      async (url) => {
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.body).toContain(PLACEHOLDER_TEXT);
        expect(res.body).toContain('<meta name="kith-default-lang" content="en_US">');
        expect(res.body).toContain('<base href="/">');
        expect(res.body).not.toContain('<!--kith-config-->');
        const csp = String(res.headers['content-security-policy']);
        expect(csp).toContain("default-src 'self'");
        expect(csp).toContain("frame-ancestors 'none'");
        expect(res.headers['x-frame-options']).toBe('DENY');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
      },
    );

    it('answers other methods outside the API with a JSON 404, not the page', async () => {
      const res = await t.app.inject({ method: 'POST', url: '/groups/abc', payload: '{}' });
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain(PLACEHOLDER_TEXT);
      expectEnvelope({ status: res.statusCode, headers: res.headers, text: res.body });
    });

    it('does not answer /files/ paths with the page', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/files/5b0f1c1e-8a4e-4f7e-9d53-0b7d2f6f4c11.jpg' });
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain(PLACEHOLDER_TEXT);
      expectEnvelope({ status: res.statusCode, headers: res.headers, text: res.body });
    });
  });

  describe('CORS without CORS_ORIGINS', () => {
    it('sends no CORS header, even to a preflight', async () => {
      const get = await api.get('/info', { headers: { Origin: 'https://app.example' } });
      expect(get.status).toBe(200);
      expect(get.headers['access-control-allow-origin']).toBeUndefined();
      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url: '/api/me',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-auth-token',
        },
      });
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      expect(preflight.headers['access-control-allow-headers']).toBeUndefined();
      expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
    });
  });
});

describe('web client from a built folder (WEB_DIST)', () => {
  let t: TestApp;
  let dist: string;
  const INDEX = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><!--kith-config--><title>Kith built</title>
<script type="module" src="/assets/app.js"></script></head><body><div id="root"></div></body></html>
`;

  beforeAll(async () => {
    dist = mkdtempSync(path.join(tmpdir(), 'kith-web-dist-'));
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(path.join(dist, 'index.html'), INDEX);
    writeFileSync(path.join(dist, 'assets', 'app.js'), 'console.log("kith client");\n');
    t = await createTestApp({ WEB_DIST: dist, DEFAULT_LANG: 'fr_FR' });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('serves assets with a long Cache-Control', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/assets/app.js' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('console.log("kith client");\n');
    expect(res.headers['content-type']).toMatch(/javascript/);
    const cacheControl = String(res.headers['cache-control']);
    expect(cacheControl).toContain('immutable');
    expect(Number(/max-age=(\d+)/.exec(cacheControl)?.[1])).toBeGreaterThanOrEqual(31536000);
  });

  it.each(['/', '/groups/abc', '/messages/1/2', '/create-group'])(
    'GET %s answers the built index.html with the base tags injected',
    async (url) => {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('<div id="root"></div>');
      expect(res.body).toContain('<title>Kith built</title>');
      expect(res.body).not.toContain(PLACEHOLDER_TEXT);
      expect(res.body).not.toContain('<!--kith-config-->');
      expect(res.body).toContain(
        '<base href="/"><meta name="kith-base-path" content=""><meta name="kith-default-lang" content="fr_FR">',
      );
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
      expect(String(res.headers['cache-control'])).not.toContain('immutable');
    },
  );

  it('answers /index.html with the rendered page and its headers, never the raw file', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await t.app.inject({ method, url: '/index.html' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
      expect(String(res.headers['content-security-policy'])).toContain("script-src 'self'");
      if (method === 'GET') expect(res.body).toContain('<meta name="kith-default-lang" content="fr_FR">');
    }
  });

  it('gives any other HTML answer the same framing protection (the API docs page)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    // The docs page keeps its own list of scripts.
    expect(csp).toMatch(/script-src/);
  });

  it('still answers the API in JSON, unknown API paths included', async () => {
    const api = new ApiClient(t.app);
    const info = await api.get('/info');
    expect(info.status).toBe(200);
    expect(info.body.default_lang).toBe('fr_FR');
    expectApiHeaders(info);
    const unknown = await api.get('/not/a/route');
    expectError(unknown, 404, 'route_not_found');
    expect(unknown.text).not.toContain('<div id="root">');
    expectError(await api.delete('/me'), 405, 'method_not_allowed');
  });
});

describe('BASE_PATH', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await createTestApp({ BASE_PATH: '/family', PUBLIC_URL: 'http://kith.test/family' });
    api = new ApiClient(t.app, '/family/api');
  });
  afterAll(() => t.close());

  it('serves the API under <base>/api', async () => {
    const res = await api.get('/info');
    expect(res.status).toBe(200);
    expect(res.body.compat).toBe('zusam-0.5.6');
    expectApiHeaders(res);
    const ana = await buildUser(t.ctx);
    const created = await api.post('/groups', { key: ana.key, body: { name: 'Sub' } });
    expect(created.status).toBe(201);
    expect((await api.get(`/groups/${created.body.id}`, { key: ana.key })).body.name).toBe('Sub');
    expectError(await api.get('/nope'), 404, 'route_not_found');
    expectError(await api.delete('/me'), 405, 'method_not_allowed');
  });

  it('does not serve the API at the site root', async () => {
    const res = await new ApiClient(t.app).get('/info');
    expect(res.status).toBe(404);
    expect(res.body.compat).toBeUndefined();
    expect(res.text).not.toContain('<html');
  });

  it.each(['/family/messages/x', '/family/', '/family', '/family/groups/abc'])(
    'GET %s answers the page with <base href="/family/">',
    async (url) => {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('<base href="/family/">');
      expect(res.body).toContain('<meta name="kith-base-path" content="/family">');
      expect(res.headers['x-frame-options']).toBe('DENY');
    },
  );

  it('redirects the site root to the base path', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBeGreaterThanOrEqual(301);
    expect(res.statusCode).toBeLessThanOrEqual(308);
    expect(res.headers.location).toBe('/family/');
  });

  it('answers paths outside the base path with a 404, not the page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/other/messages/x' });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('<html');
  });
});

describe('CORS with CORS_ORIGINS', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ CORS_ORIGINS: 'https://app.example' });
  });
  afterAll(() => t.close());

  const preflight = (origin: string, url = '/api/me') =>
    t.app.inject({
      method: 'OPTIONS',
      url,
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-auth-token, content-type',
      },
    });

  it('answers a preflight from a listed origin with 204, X-AUTH-TOKEN allowed and no credentials', async () => {
    for (const url of ['/api/me', '/api/groups', '/api/groups/6f1d2c3b-4a59-4e8d-9c7b-6a5f4e3d2c1b/leave']) {
      const res = await preflight('https://app.example', url);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
      const allowHeaders = String(res.headers['access-control-allow-headers'])
        .split(',')
        .map((h) => h.trim().toLowerCase());
      expect(allowHeaders).toContain('x-auth-token');
      expect(allowHeaders).toContain('content-type');
      const allowMethods = String(res.headers['access-control-allow-methods']);
      for (const m of ['GET', 'POST', 'PUT', 'DELETE']) expect(allowMethods).toContain(m);
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(String(res.headers.vary)).toMatch(/origin/i);
    }
  });

  it('adds Allow-Origin, without credentials, to real calls from a listed origin', async () => {
    const ana = await buildUser(t.ctx);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { origin: 'https://app.example', 'x-auth-token': ana.key },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it.each(['https://evil.example', 'http://app.example', 'https://app.example.evil.test', 'null'])(
    'gives the origin %s no CORS header',
    async (origin) => {
      const pre = await preflight(origin);
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
      expect(pre.headers['access-control-allow-headers']).toBeUndefined();
      expect(pre.headers['access-control-allow-methods']).toBeUndefined();
      const get = await t.app.inject({ method: 'GET', url: '/api/info', headers: { origin } });
      expect(get.statusCode).toBe(200);
      expect(get.headers['access-control-allow-origin']).toBeUndefined();
    },
  );
});

describe('logs without secrets, and 500 answers', () => {
  let t: TestApp;
  let app: FastifyInstance;
  let ctx: AppContext;
  const lines: string[] = [];

  const BOOM_DETAIL = 'boom-internal-detail-4b7e';

  beforeAll(async () => {
    t = await createTestApp();
    const stream = new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        lines.push(
          ...String(chunk)
            .split('\n')
            .filter((l) => l.trim() !== ''),
        );
        callback();
      },
    });
    // createTestApp gives no way to inject a logger: build a second app on the same database.
    ctx = await createContext(t.config, {
      log: pino({ level: 'info' }, stream),
      clock: t.clock,
      mailer: t.mailer,
      db: t.ctx.db,
    });
    app = await buildApp(ctx);
    app.get('/api/test-only/boom', async () => {
      throw new Error(BOOM_DETAIL);
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await closeContext(ctx, { database: false });
    await t.close();
  });

  /** Log lines are written after the answer; wait until `count` request lines are there. */
  async function requestLines(count: number): Promise<Record<string, unknown>[]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      const requests = parsed.filter((l) => l.msg === 'request');
      if (requests.length >= count || Date.now() > deadline) return parsed;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('logs one line per request with the invite key, tokens and API key redacted', async () => {
    const api = new ApiClient(app);
    const ana = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [ana] });
    const ben = await buildUser(t.ctx);
    const publicToken = 'pUbLiCtOkEn-9f8e7d6c5b4a';
    const unsubscribeToken = 'UnSuBsCrIbE-1a2b3c4d5e';
    const unknownInvite = 'unknown-invite-7q7q7q';
    const signature = 'SiGnAtUrE-22charsXYZab';
    const before = lines.length;

    const joined = await api.post(`/groups/invitation/${group.secret_key}`, { key: ben.key, body: {} });
    expect(joined.status).toBe(200);
    const unknown = await api.post(`/groups/invitation/${unknownInvite}`, { key: ben.key, body: {} });
    expect(unknown.status).toBe(400);
    await api.get(`/public/${publicToken}?key=abc`, { key: ana.key });
    await api.get(`/public/${publicToken}?lang=fr&key=longerQueryKey77`, { key: 'stale-key-XYZ-123456' });
    await api.get(`/stop-notification-emails/${ana.user.id}/${unsubscribeToken}`);
    await app.inject({ method: 'GET', url: `/files/5b0f1c1e-8a4e-4f7e-9d53-0b7d2f6f4c11.jpg?exp=1&sig=${signature}` });

    const parsed = await requestLines(6);
    const written = lines.slice(before).join('\n');
    const requests = parsed.filter((l) => l.msg === 'request');
    expect(requests.length).toBeGreaterThanOrEqual(6);

    for (const secret of [
      group.secret_key,
      ana.key,
      ben.key,
      publicToken,
      unsubscribeToken,
      unknownInvite,
      signature,
      'key=abc',
      'longerQueryKey77',
      'stale-key-XYZ-123456',
    ]) {
      expect(written).not.toContain(secret);
    }
    expect(written).toContain('[redacted]');
    const urls = requests.map((r) => r.url);
    expect(urls).toContain('/api/groups/invitation/[redacted]');
    expect(urls).toContain('/api/public/[redacted]?key=[redacted]');
    expect(urls).toContain('/api/public/[redacted]?lang=fr&key=[redacted]');
    expect(urls).toContain(`/api/stop-notification-emails/${ana.user.id}/[redacted]`);
    // Each line says what happened.
    const invitation = requests.find((r) => r.url === '/api/groups/invitation/[redacted]' && r.status === 200);
    expect(invitation).toMatchObject({ method: 'POST', status: 200 });
    expect(typeof invitation?.ms).toBe('number');
  });

  it('answers an unexpected failure with 500 internal_error and X-Request-Id, and logs it under that id', async () => {
    const res = await new ApiClient(app).get('/test-only/boom');
    expectError(res, 500, 'internal_error');
    expectApiHeaders(res);
    expect(res.text).not.toContain(BOOM_DETAIL);
    const requestId = String(res.headers['x-request-id']);

    await requestLines(1);
    const deadline = Date.now() + 15_000;
    let failure: Record<string, unknown> | undefined;
    while (failure === undefined && Date.now() < deadline) {
      failure = lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.reqId === requestId && typeof l.level === 'number' && l.level >= 50);
      if (failure === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(failure).toBeDefined();
    expect(JSON.stringify(failure)).toContain(BOOM_DETAIL);
  });
});

describe('redactUrl', () => {
  it.each([
    ['/api/groups/invitation/8e3b1f5a-2c4d', '/api/groups/invitation/[redacted]'],
    ['/family/api/groups/invitation/abc/', '/family/api/groups/invitation/[redacted]/'],
    ['/api/public/tok123', '/api/public/[redacted]'],
    ['/api/public/tok123?key=abc', '/api/public/[redacted]?key=[redacted]'],
    ['/api/stop-notification-emails/u-1/tok', '/api/stop-notification-emails/u-1/[redacted]'],
    ['/files/f.jpg?exp=17&sig=abcdef', '/files/f.jpg?exp=17&sig=[redacted]'],
    [
      '/api/x?token=t&mail=a%40b.c&api_key=k&APIKEY=k2&page=2',
      '/api/x?token=[redacted]&mail=[redacted]&api_key=[redacted]&APIKEY=[redacted]&page=2',
    ],
    ['/api/info', '/api/info'],
    ['/api/groups/6f1d2c3b-4a59-4e8d-9c7b-6a5f4e3d2c1b?x=1', '/api/groups/6f1d2c3b-4a59-4e8d-9c7b-6a5f4e3d2c1b?x=1'],
  ])('redacts %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('leaves no secret behind whatever follows it', () => {
    const out = redactUrl('/api/public/SECRET1/more?key=SECRET2&key=SECRET3&sig');
    expect(out).not.toMatch(/SECRET/);
    expect(out.startsWith('/api/public/[redacted]')).toBe(true);
  });
});

describe('onActivity (memory given back when requests pause, lib/quiet-reclaim.ts)', () => {
  let t: TestApp;
  let app: FastifyInstance;
  let calls = 0;

  beforeAll(async () => {
    t = await createTestApp();
    app = await buildApp(t.ctx, { onActivity: () => (calls += 1) });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await t.close();
  });

  it('is called as each request starts and as it ends, answered or refused', async () => {
    calls = 0;
    expect((await app.inject({ method: 'GET', url: '/api/info' })).statusCode).toBe(200);
    expect(calls).toBe(2);
    expect((await app.inject({ method: 'GET', url: '/api/no-such-route' })).statusCode).toBe(404);
    expect(calls).toBe(4);
  });
});
