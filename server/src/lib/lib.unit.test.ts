import { describe, expect, it } from 'vitest';
import { Throttle, THROTTLES } from './throttles.js';
import { canEditUser } from '../features/account/policy.js';
import { redactUrl } from '../http/redact.js';
import { Body } from './body.js';
import type { Clock } from './clock.js';
import { ApiError, invalidField, missingField, notFound, tooManyRequests } from './errors.js';
import { newId, newOrderedId, parseId } from './ids.js';
import { hashPassword, verifyDummyPassword, verifyPassword } from './passwords.js';
import { rateLimiterCases, rejectionOf } from '../../test/rate-limiter-cases.js';
import { MemoryRateLimiter, type RateLimiter } from './rate-limiter.js';
import { randomToken, safeEqual, SecretBox, sha256 } from './secrets.js';
import { UUID_V4 } from '../../test/expect.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** A clock the test moves by hand. */
function fakeClock(start = 1_700_000_000_000): Clock & { t: number } {
  const clock = { t: start, now: () => clock.t };
  return clock;
}

/** The ApiError that `fn` throws (fails the test when it throws nothing or something else). */
function apiErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  return expect.unreachable('expected an ApiError');
}

describe('MemoryRateLimiter', () => {
  rateLimiterCases(() =>
    Promise.resolve({ make: (clock) => new MemoryRateLimiter(clock), close: () => Promise.resolve() }),
  );

  it('sweeps hits older than the longest window (1 hour) and keeps recent ones', async () => {
    const clock = fakeClock();
    const limiter = new MemoryRateLimiter(clock);
    await limiter.hit('old');
    clock.t += 2 * 60 * MINUTE;
    await limiter.hit('new'); // triggers a sweep
    await limiter.hit('new');
    expect((await limiter.count('new', 60 * MINUTE, 100)).count).toBe(2);
    expect((await limiter.count('old', 3 * 60 * MINUTE, 100)).count).toBe(0);
  });
});

describe('Throttle', () => {
  it('implements the throttling table of the contract (§1.6)', () => {
    expect(THROTTLES.loginFailuresPerLoginAndIp).toEqual({ limit: 10, windowMs: 15 * MINUTE });
    expect(THROTTLES.loginFailuresPerLogin).toEqual({ limit: 50, windowMs: 60 * MINUTE });
    expect(THROTTLES.loginAttemptsPerIp).toEqual({ limit: 100, windowMs: 15 * MINUTE });
    expect(THROTTLES.signupPerIp).toEqual({ limit: 10, windowMs: 60 * MINUTE });
    expect(THROTTLES.resetMailPerIp).toEqual({ limit: 10, windowMs: 60 * MINUTE });
    expect(THROTTLES.resetMailsPerAccount).toEqual({ limit: 3, windowMs: 60 * MINUTE });
    expect(THROTTLES.newPasswordFailuresPerIp).toEqual({ limit: 10, windowMs: 15 * MINUTE });
    expect(THROTTLES.unknownInvitationsPerUser).toEqual({ limit: 20, windowMs: 60 * MINUTE });
  });

  it('take counts each attempt and refuses the one over the limit without counting it', async () => {
    const clock = fakeClock();
    const memory = new MemoryRateLimiter(clock);
    const hits: string[] = [];
    const limiter: RateLimiter = {
      count: (key, windowMs, limit) => memory.count(key, windowMs, limit),
      hit: (key) => memory.hit(key),
      take: async (key, windowMs, limit) => {
        const answer = await memory.take(key, windowMs, limit);
        if (answer.allowed) hits.push(key);
        return answer;
      },
      undo: (key) => memory.undo(key),
      reset: (key) => memory.reset(key),
    };
    const throttle = new Throttle(limiter, 'signupPerIp', '203.0.113.7');
    for (let i = 0; i < 10; i++) await throttle.take();
    expect(hits).toHaveLength(10);
    const error = await rejectionOf(throttle.take());
    expect(error.status).toBe(429);
    expect(error.code).toBe('too_many_requests');
    expect(hits).toHaveLength(10);
    // One hour after the first ten, they have all expired.
    clock.t += 60 * MINUTE;
    await expect(throttle.take()).resolves.toBeUndefined();
    expect(hits).toHaveLength(11);
  });
});

describe('Body', () => {
  const UPPER = '3F6C2A9E-5B1D-4C7E-9A2F-8D4B1E6C7A10';
  const LOWER = '3f6c2a9e-5b1d-4c7e-9a2f-8d4b1e6c7a10';

  it.each([null, undefined])('of(%s) is an empty body', (value) => {
    const body = Body.of(value);
    expect(body.has('name')).toBe(false);
    expect(body.string('name')).toBeUndefined();
    expect(body.object('data')).toBeUndefined();
  });

  it.each([[[]], ['x'], [5], [true], [[{ a: 1 }]]])('of(%j) is invalid_json', (value) => {
    const error = apiErrorOf(() => Body.of(value));
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_json');
  });

  it('of({}) reads the object', () => {
    expect(Body.of({ name: 'Ana' }).string('name')).toBe('Ana');
  });

  it('has: null and absent are not given; false, 0, [] and "" are real values', () => {
    const body = Body.of({ n: null, f: false, z: 0, a: [], s: '' });
    expect(body.has('n')).toBe(false);
    expect(body.has('missing')).toBe(false);
    expect(body.has('f')).toBe(true);
    expect(body.has('z')).toBe(true);
    expect(body.has('a')).toBe(true);
    expect(body.has('s')).toBe(true);
  });

  it('string returns the value as sent, undefined for null or absent', () => {
    const body = Body.of({ a: '  hi  ', e: '', n: null });
    expect(body.string('a')).toBe('  hi  ');
    expect(body.string('e')).toBe('');
    expect(body.string('n')).toBeUndefined();
    expect(body.string('missing')).toBeUndefined();
  });

  it.each([[5], [true], [{}], [['x']]])('string refuses %j with invalid_field', (value) => {
    const error = apiErrorOf(() => Body.of({ name: value }).string('name'));
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_field');
    expect(error.field).toBe('name');
  });

  it('requiredString returns the untrimmed value and refuses absent, null or blank with missing_field', () => {
    const body = Body.of({ a: ' x ', blank: ' \t', n: null });
    expect(body.requiredString('a')).toBe(' x ');
    for (const key of ['blank', 'n', 'missing']) {
      const error = apiErrorOf(() => body.requiredString(key));
      expect(error.status).toBe(400);
      expect(error.code).toBe('missing_field');
      expect(error.field).toBe(key);
    }
  });

  it('requiredString uses the given message and still refuses wrong types as invalid_field', () => {
    const body = Body.of({ n: 3 });
    expect(apiErrorOf(() => body.requiredString('login', 'Login is required')).message).toBe('Login is required');
    expect(apiErrorOf(() => body.requiredString('n')).code).toBe('invalid_field');
  });

  it('boolean keeps false, and refuses strings and numbers', () => {
    const body = Body.of({ t: true, f: false, n: null, s: 'true', z: 0 });
    expect(body.boolean('t')).toBe(true);
    expect(body.boolean('f')).toBe(false);
    expect(body.boolean('n')).toBeUndefined();
    expect(body.boolean('missing')).toBeUndefined();
    expect(apiErrorOf(() => body.boolean('s'))).toMatchObject({ code: 'invalid_field', field: 's' });
    expect(apiErrorOf(() => body.boolean('z'))).toMatchObject({ code: 'invalid_field', field: 'z' });
  });

  it('integer keeps 0 and negatives, and refuses fractions, strings and unsafe integers', () => {
    const body = Body.of({ z: 0, neg: -3, big: 1767270000, n: null, frac: 1.5, s: '3', huge: 2 ** 53 });
    expect(body.integer('z')).toBe(0);
    expect(body.integer('neg')).toBe(-3);
    expect(body.integer('big')).toBe(1767270000);
    expect(body.integer('n')).toBeUndefined();
    expect(body.integer('missing')).toBeUndefined();
    for (const key of ['frac', 's', 'huge']) {
      expect(apiErrorOf(() => body.integer(key))).toMatchObject({ status: 400, code: 'invalid_field', field: key });
    }
  });

  it('object gives a nested body whose errors carry the dotted path', () => {
    const body = Body.of({ data: { lang: 5, inner: { deep: 'x' }, ok: 'fr_FR' } });
    const data = body.object('data');
    expect(data).toBeInstanceOf(Body);
    expect(data?.string('ok')).toBe('fr_FR');
    expect(apiErrorOf(() => data?.string('lang'))).toMatchObject({ code: 'invalid_field', field: 'data.lang' });
    expect(apiErrorOf(() => data?.object('inner')?.integer('deep'))).toMatchObject({
      code: 'invalid_field',
      field: 'data.inner.deep',
    });
    expect(apiErrorOf(() => data?.requiredString('title'))).toMatchObject({
      code: 'missing_field',
      field: 'data.title',
    });
  });

  it('object is undefined for null or absent, invalid_field for arrays and scalars', () => {
    const body = Body.of({ n: null, arr: [], s: 'x', num: 1, data: { list: [1] } });
    expect(body.object('n')).toBeUndefined();
    expect(body.object('missing')).toBeUndefined();
    for (const key of ['arr', 's', 'num']) {
      expect(apiErrorOf(() => body.object(key))).toMatchObject({ code: 'invalid_field', field: key });
    }
    expect(apiErrorOf(() => body.object('data')?.object('list'))).toMatchObject({ field: 'data.list' });
  });

  it('id takes a string or an {id} object and lowercases it', () => {
    const body = Body.of({ a: UPPER, b: { id: UPPER, entityType: 'group' }, c: LOWER });
    expect(body.id('a')).toBe(LOWER);
    expect(body.id('b')).toBe(LOWER);
    expect(body.id('c')).toBe(LOWER);
  });

  it("id: null or absent is undefined, '' is kept as '', malformed is 'invalid'", () => {
    const body = Body.of({ n: null, e: '', eo: { id: '' }, bad: 'not-an-id', badObj: { id: '123' } });
    expect(body.id('n')).toBeUndefined();
    expect(body.id('missing')).toBeUndefined();
    expect(body.id('e')).toBe('');
    expect(body.id('eo')).toBe('');
    expect(body.id('bad')).toBe('invalid');
    expect(body.id('badObj')).toBe('invalid');
  });

  it.each([[5], [true], [[LOWER]], [{}], [{ id: 5 }]])('id refuses %j with invalid_field', (value) => {
    const error = apiErrorOf(() =>
      Body.of({ data: { default_group: value } })
        .object('data')
        ?.id('default_group'),
    );
    expect(error).toMatchObject({ status: 400, code: 'invalid_field', field: 'data.default_group' });
  });

  it('raw gives the value untouched', () => {
    const files = [{ id: LOWER }, LOWER];
    expect(Body.of({ files }).raw('files')).toBe(files);
    expect(Body.of({}).raw('files')).toBeUndefined();
  });

  it('error texts contain no ":" (docs/api §1.5)', () => {
    const body = Body.of({ data: { lang: 5 } });
    const errors = [
      apiErrorOf(() => Body.of([])),
      apiErrorOf(() => body.object('data')?.string('lang')),
      apiErrorOf(() => body.requiredString('mail')),
      apiErrorOf(() => body.object('data')?.boolean('lang')),
      apiErrorOf(() => Body.of({ n: 'x' }).integer('n')),
      apiErrorOf(() => Body.of({ n: 'x' }).object('n')),
      apiErrorOf(() => Body.of({ n: 5 }).id('n')),
    ];
    for (const error of errors) expect(error.message).not.toContain(':');
  });
});

describe('secrets', () => {
  it('randomToken is 43 base64url characters and differs each call', () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const token = randomToken();
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      tokens.add(token);
    }
    expect(tokens.size).toBe(50);
  });

  it('randomToken holds 256 bits', () => {
    expect(Buffer.from(randomToken(), 'base64url')).toHaveLength(32);
  });

  it('sha256 is the hex digest', () => {
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('SecretBox opens what it sealed', () => {
    const box = new SecretBox('server-secret-0123456789abcdefghijkl');
    const key = randomToken();
    expect(box.open(box.seal(key))).toBe(key);
    expect(box.open(box.seal(''))).toBe('');
    expect(box.open(box.seal('clé 🔑'))).toBe('clé 🔑');
    // Another box with the same secret (after a restart) opens it too.
    expect(new SecretBox('server-secret-0123456789abcdefghijkl').open(box.seal(key))).toBe(key);
  });

  it('SecretBox seals the same value differently each time and never in clear', () => {
    const box = new SecretBox('server-secret-0123456789abcdefghijkl');
    const a = box.seal('the-api-key');
    const b = box.seal('the-api-key');
    expect(a).not.toBe(b);
    expect(a).not.toContain('the-api-key');
  });

  it('SecretBox refuses a value sealed with another server secret', () => {
    const sealed = new SecretBox('server-secret-0123456789abcdefghijkl').seal('the-api-key');
    expect(() => new SecretBox('another-secret-0123456789abcdefghijk').open(sealed)).toThrow();
  });

  it('SecretBox refuses a tampered or malformed value', () => {
    const box = new SecretBox('server-secret-0123456789abcdefghijkl');
    const sealed = box.seal('the-api-key');
    const [iv = '', tag = '', body = ''] = sealed.split('.');
    const bytes = Buffer.from(body, 'base64url');
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    expect(() => box.open([iv, tag, bytes.toString('base64url')].join('.'))).toThrow();
    const tagBytes = Buffer.from(tag, 'base64url');
    tagBytes[0] = (tagBytes[0] ?? 0) ^ 1;
    expect(() => box.open([iv, tagBytes.toString('base64url'), body].join('.'))).toThrow();
    expect(() => box.open('garbage')).toThrow();
    expect(() => box.open(`${iv}.${tag}`)).toThrow();
  });

  it('safeEqual compares strings', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('', '')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('abcd', 'abc')).toBe(false);
    expect(safeEqual('é', 'e')).toBe(false);
  });
});

describe('ids', () => {
  it('newId is a lowercase UUID v4, different each time', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const id = newId();
      expect(id).toMatch(UUID_V4);
      ids.add(id);
    }
    expect(ids.size).toBe(20);
  });

  it('newOrderedId is a lowercase UUID v4 that starts with its time and sorts by it', () => {
    const at = Date.UTC(2026, 10, 22, 9, 30, 15, 123);
    const sameMs = Array.from({ length: 200 }, () => newOrderedId(at));
    for (const id of sameMs) {
      expect(id).toMatch(UUID_V4);
      expect(parseId(id)).toBe(id);
      expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
    }
    // 74 random bits: the same millisecond still gives different ids.
    expect(new Set(sameMs).size).toBe(200);
    const times = [0, 1, 255, 256, at - 1, at, at + 1, at + 86_400_000, 0xffff_ffff_ffff];
    const ids = times.map((t) => newOrderedId(t));
    expect([...ids].sort()).toEqual(ids);
    expect(newOrderedId(-5).startsWith('00000000-0000-4')).toBe(true);
  });

  it('parseId lowercases a UUID', () => {
    expect(parseId('3F6C2A9E-5B1D-4C7E-9A2F-8D4B1E6C7A10')).toBe('3f6c2a9e-5b1d-4c7e-9a2f-8d4b1e6c7a10');
    expect(parseId('3f6c2a9e-5b1d-4c7e-9a2f-8d4b1e6c7a10')).toBe('3f6c2a9e-5b1d-4c7e-9a2f-8d4b1e6c7a10');
  });

  it.each([
    '',
    'abc',
    '1',
    '3f6c2a9e5b1d4c7e9a2f8d4b1e6c7a10',
    '{3f6c2a9e-5b1d-4c7e-9a2f-8d4b1e6c7a10}',
    ' 3f6c2a9e-5b1d-4c7e-9a2f-8d4b1e6c7a10',
    '3f6c2a9e-5b1d-4c7e-9a2f-8d4b1e6c7a10 ',
    '3f6c2a9e-5b1d-4c7e-9a2f-8d4b1e6c7a1',
    '3f6c2a9e-5b1d-4c7e-9a2f-8d4b1e6c7a100',
    'gf6c2a9e-5b1d-4c7e-9a2f-8d4b1e6c7a10',
    '3f6c2a9e-5b1d-4c7e-9a2f-8d4b1e6c7a10\n',
    '../../etc/passwd',
  ])('parseId(%j) is null', (value) => {
    expect(parseId(value)).toBeNull();
  });
});

describe('passwords', () => {
  it('hashes with argon2id and verifies', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash.startsWith('$argon2id$')).toBe(true);
    expect(hash).not.toContain('correct horse battery');
    expect(await verifyPassword(hash, 'correct horse battery')).toBe(true);
    expect(await verifyPassword(hash, 'correct horse batter')).toBe(false);
    expect(await verifyPassword(hash, '')).toBe(false);
  });

  it('salts each hash', async () => {
    expect(await hashPassword('same password')).not.toBe(await hashPassword('same password'));
  });

  it('verifyPassword is false for a malformed hash', async () => {
    expect(await verifyPassword('not-a-hash', 'whatever')).toBe(false);
    expect(await verifyPassword('', 'whatever')).toBe(false);
    expect(await verifyPassword('$argon2id$v=19$m=19456,t=2,p=1$broken', 'whatever')).toBe(false);
  });

  it('verifyDummyPassword is always false', async () => {
    expect(await verifyDummyPassword('kith-dummy-password-for-timing')).toBe(false);
    expect(await verifyDummyPassword('anything')).toBe(false);
  });
});

describe('redactUrl', () => {
  const ID = '3f6c2a9e-5b1d-4c7e-9a2f-8d4b1e6c7a10';

  it.each([
    ['/api/groups/invitation/SeCrEtInViTe', '/api/groups/invitation/[redacted]'],
    ['/invitation/SeCrEtInViTe', '/invitation/[redacted]'],
    ['/api/public/PuBlIcToKeN', '/api/public/[redacted]'],
    ['/public/PuBlIcToKeN', '/public/[redacted]'],
    [`/api/stop-notification-emails/${ID}/1767270000.SiGnAtUrE`, `/api/stop-notification-emails/${ID}/[redacted]`],
    [`/stop-notification-emails/${ID}/1767270000.SiGnAtUrE`, `/stop-notification-emails/${ID}/[redacted]`],
  ])('redacts the secret in %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('redacts key, token, sig and mail in the query and keeps the other parameters', () => {
    expect(redactUrl('/password-reset?mail=ana%40example.org&key=ReSeTkEy')).toBe(
      '/password-reset?mail=[redacted]&key=[redacted]',
    );
    expect(redactUrl(`/files/${ID}.jpg?exp=1767300000&sig=SiGnAtUrE`)).toBe(
      `/files/${ID}.jpg?exp=1767300000&sig=[redacted]`,
    );
    expect(redactUrl('/x?token=ToKeN&page=2&Key=K2')).toBe('/x?token=[redacted]&page=2&Key=[redacted]');
  });

  it('redacts the path and the query together', () => {
    const out = redactUrl('/api/public/PuBlIcToKeN?sig=SiG&lang=fr');
    expect(out).toBe('/api/public/[redacted]?sig=[redacted]&lang=fr');
  });

  it('leaves URLs without secrets untouched', () => {
    for (const url of [
      '/api/me',
      `/api/groups/${ID}/page/2`,
      '/api/stop-notification-emails',
      '/api/links/by_url?url=https%3A%2F%2Fexample.org%2F',
      '/api/messages/search?q=beach&monkey=1&tokens=2',
    ]) {
      expect(redactUrl(url)).toBe(url);
    }
  });
});

describe('canEditUser (docs/api §4.3–4.5)', () => {
  const me = { id: '3f6c2a9e-5b1d-4c7e-9a2f-8d4b1e6c7a10' };

  it('allows the caller on their own id only', () => {
    expect(canEditUser(me, me.id)).toBe(true);
    expect(canEditUser(me, '7d2e9f14-6a3b-4c5d-8e7f-9a0b1c2d3e4f')).toBe(false);
  });

  it('refuses a path id that is not a UUID (parsed to null)', () => {
    expect(canEditUser(me, null)).toBe(false);
    expect(canEditUser(me, parseId('me'))).toBe(false);
  });

  it('allows the caller own id given in upper case once parsed', () => {
    expect(canEditUser(me, parseId(me.id.toUpperCase()))).toBe(true);
  });
});

describe('ApiError', () => {
  it('toBody has message === error and no field when none is given', () => {
    const body = new ApiError(404, 'not_found', 'Not found').toBody();
    expect(body).toEqual({ code: 'not_found', message: 'Not found', error: 'Not found' });
    expect('field' in body).toBe(false);
  });

  it('toBody carries the field when given', () => {
    const error = new ApiError(400, 'text_too_long', 'The text is longer than 50000 characters.', 'data.text');
    expect(error.toBody()).toEqual({
      code: 'text_too_long',
      message: 'The text is longer than 50000 characters.',
      error: 'The text is longer than 50000 characters.',
      field: 'data.text',
    });
  });

  it('keeps status, code, field and headers', () => {
    const error = new ApiError(405, 'method_not_allowed', 'Method not allowed', undefined, { Allow: 'GET, PUT' });
    expect(error).toBeInstanceOf(Error);
    expect(error.status).toBe(405);
    expect(error.code).toBe('method_not_allowed');
    expect(error.headers).toEqual({ Allow: 'GET, PUT' });
    expect(new ApiError(400, 'invalid_json', 'x').headers).toEqual({});
  });

  it('short constructors build the contract errors', () => {
    expect(notFound()).toMatchObject({ status: 404, code: 'not_found' });
    expect(missingField('login').toBody()).toMatchObject({ code: 'missing_field', field: 'login' });
    expect(invalidField('data.lang').toBody()).toMatchObject({ code: 'invalid_field', field: 'data.lang' });
    expect(tooManyRequests(0.2).headers).toEqual({ 'Retry-After': '1' });
    expect(tooManyRequests(59.1).headers).toEqual({ 'Retry-After': '60' });
    expect(tooManyRequests(0).headers).toEqual({ 'Retry-After': '1' });
  });

  it('never puts a success field in the body', () => {
    const body = missingField('id').toBody();
    for (const key of ['id', 'entityType', 'api_key', 'apiKey', 'secretKey', 'inviteKey', 'token']) {
      expect(key in body).toBe(false);
    }
  });
});
