import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from '../../../test/client.js';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import { buildGroup, buildUser, reloadUser, type BuiltUser } from '../../../test/factories.js';
import type { Mail } from '../../mail/mailer.js';
import { expectError as expectSharedError, type ErrorExpectation } from '../../../test/expect.js';

// Login, signup, password reset and the API key header (docs/api §1.2, §1.5, §1.6, §3.2–3.5, §10.1).

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NEW_KEY = /^[A-Za-z0-9_-]{43}$/;
const INVALID_LOGIN = 'Invalid login/password';
const TOO_MANY = 'Too many attempts. Please wait a few minutes.';
/** Fields whose presence the 0.5.6 client takes as success (docs/api §1.5). */

/** A fresh client address for each use, so throttle counters of one test never touch another. */
let ipCounter = 0;
function nextIp(): string {
  ipCounter += 1;
  return `10.${Math.floor(ipCounter / 60000) % 250}.${Math.floor(ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;
}

/** A fresh, unique e-mail address. */
let mailCounter = 0;
function uniqueMail(prefix = 'person'): string {
  mailCounter += 1;
  return `${prefix}${mailCounter}-${Math.random().toString(36).slice(2, 8)}@example.org`;
}

/** The shared envelope check, with the account endpoints' rule: no ':' in the text (§1.5). */
function expectError(res: ApiResponse, status: number, code: string, options: ErrorExpectation = {}): void {
  expectSharedError(res, status, code, { colonFree: true, ...options });
}

/** A 429 with the contract's text and a `Retry-After` of at most `maxSeconds`. */
function expectThrottled(res: ApiResponse, maxSeconds: number): void {
  expectError(res, 429, 'too_many_requests', { message: TOO_MANY });
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
}

/** Waits for a mail sent after the first `from` mails that matches `predicate`. */
function mailAfter(t: TestApp, from: number, predicate: (mail: Mail) => boolean): Promise<Mail> {
  return t.mailer.waitFor((mail) => t.mailer.sent.indexOf(mail) >= from && predicate(mail));
}

/** The reset key of a password-reset mail, checking the link's form (§3.4). */
function resetKeyOf(mail: Mail, login: string): string {
  const prefix = `http://kith.test/password-reset?mail=${encodeURIComponent(login)}&key=`;
  expect(mail.text).toContain(prefix);
  const match = /[?&]key=([^\s&]+)/.exec(mail.text);
  expect(match).not.toBeNull();
  return decodeURIComponent(match?.[1] ?? '');
}

/** Asks for a reset mail for `login` and returns the key it carries. */
async function requestResetKey(t: TestApp, api: ApiClient, login: string, ip = nextIp()): Promise<string> {
  const before = t.mailer.sent.length;
  const res = await api.post('/password-reset-mail', { body: { mail: login }, ip });
  expect(res.status).toBe(200);
  const mail = await mailAfter(t, before, (m) => m.kind === 'password_reset' && m.to === login);
  return resetKeyOf(mail, login);
}

describe('X-AUTH-TOKEN handling (§1.2)', () => {
  let t: TestApp;
  let api: ApiClient;
  let ana: BuiltUser;
  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
    ana = await buildUser(t.ctx);
  });
  afterAll(() => t.close());

  it('accepts a valid key in X-AUTH-TOKEN', async () => {
    const res = await api.get('/me', { key: ana.key });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(ana.user.id);
  });

  it('answers 401 auth_required without a header', async () => {
    expectError(await api.get('/me'), 401, 'auth_required', { colonFree: false });
  });

  it('answers 401 auth_required with an empty header', async () => {
    expectError(await api.get('/me', { key: '' }), 401, 'auth_required', { colonFree: false });
  });

  it('answers 401 invalid_api_key to an unknown well-formed key', async () => {
    const unknown = 'Zk3v9QpL0sX2mB7tY4wR8eN1cF6hJ5aD0gU3iO9kT2q';
    expect(unknown).toMatch(NEW_KEY);
    expectError(await api.get('/me', { key: unknown }), 401, 'invalid_api_key', { colonFree: false });
  });

  it('answers 401 invalid_api_key to an unknown Zusam-style (UUID) key', async () => {
    const res = await api.get('/me', { key: '3f6c2a9e-5b1d-4c7e-9a2f-8d4b1e6c7a10' });
    expectError(res, 401, 'invalid_api_key', { colonFree: false });
  });

  it('does not accept the key in an Authorization Bearer header', async () => {
    const res = await api.get('/me', { headers: { authorization: `Bearer ${ana.key}` } });
    expectError(res, 401, 'auth_required', { colonFree: false });
  });

  it('does not accept the key as an api_key query parameter', async () => {
    const res = await api.get(`/me?api_key=${encodeURIComponent(ana.key)}`);
    expectError(res, 401, 'auth_required', { colonFree: false });
  });
});

describe('POST /api/login (§3.2)', () => {
  let t: TestApp;
  let api: ApiClient;
  let ana: BuiltUser;
  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
    ana = await buildUser(t.ctx, { login: 'ana.login@example.org', name: 'Ana' });
  });
  afterAll(() => t.close());

  it('answers the same api_key on every login, and that key works', async () => {
    const ip = nextIp();
    const first = await api.post('/login', { body: { login: ana.user.login, password: ana.password }, ip });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body)).toEqual(['api_key']);
    expect(first.body.api_key).toBe(ana.key);
    const second = await api.post('/login', { body: { login: ana.user.login, password: ana.password }, ip });
    expect(second.status).toBe(200);
    expect(second.body.api_key).toBe(first.body.api_key);
    const me = await api.get('/me', { key: first.body.api_key });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(ana.user.id);
    expect(me.body.login).toBe('ana.login@example.org');
  });

  it('never changes the stored key', async () => {
    const before = await reloadUser(t.ctx, ana.user.id);
    const res = await api.post('/login', { body: { login: ana.user.login, password: ana.password }, ip: nextIp() });
    expect(res.status).toBe(200);
    const after = await reloadUser(t.ctx, ana.user.id);
    expect(after?.api_key_hash).toBe(before?.api_key_hash);
    expect(after?.api_key_version).toBe(before?.api_key_version);
  });

  it('trims and lowercases the login', async () => {
    const res = await api.post('/login', {
      body: { login: '  Ana.LOGIN@Example.ORG \t', password: ana.password },
      ip: nextIp(),
    });
    expect(res.status).toBe(200);
    expect(res.body.api_key).toBe(ana.key);
  });

  it('does not trim the password', async () => {
    const res = await api.post('/login', {
      body: { login: ana.user.login, password: ` ${ana.password} ` },
      ip: nextIp(),
    });
    expectError(res, 401, 'invalid_credentials', { message: INVALID_LOGIN });
  });

  it('lets an imported account with a short password log in (§1.7)', async () => {
    const old = await buildUser(t.ctx, { password: 'abc' });
    const res = await api.post('/login', { body: { login: old.user.login, password: 'abc' }, ip: nextIp() });
    expect(res.status).toBe(200);
    expect(res.body.api_key).toBe(old.key);
  });

  it('answers missing_field "Login cannot be empty" without a login', async () => {
    for (const body of [
      { password: ana.password },
      { login: null, password: ana.password },
      { login: '   ', password: 'x' },
    ]) {
      const res = await api.post('/login', { body, ip: nextIp() });
      expectError(res, 400, 'missing_field', { message: 'Login cannot be empty', field: 'login' });
    }
  });

  it('answers missing_field "Password cannot be empty" without a password', async () => {
    for (const body of [
      { login: ana.user.login },
      { login: ana.user.login, password: '' },
      { login: 'a@b.org', password: null },
    ]) {
      const res = await api.post('/login', { body, ip: nextIp() });
      expectError(res, 400, 'missing_field', { message: 'Password cannot be empty', field: 'password' });
    }
  });

  it('answers missing_field to an empty body', async () => {
    const res = await api.post('/login', { ip: nextIp() });
    expectError(res, 400, 'missing_field', { message: 'Login cannot be empty' });
  });

  it('answers invalid_json to a body that is not a JSON object', async () => {
    expectError(await api.post('/login', { body: '[1,2]', ip: nextIp() }), 400, 'invalid_json');
    expectError(await api.post('/login', { body: 'login=a', ip: nextIp() }), 400, 'invalid_json');
  });

  it('answers 401 invalid_credentials "Invalid login/password" to a wrong password', async () => {
    const res = await api.post('/login', { body: { login: ana.user.login, password: 'wrong password' }, ip: nextIp() });
    expectError(res, 401, 'invalid_credentials', { message: INVALID_LOGIN });
  });

  it('answers an unknown login exactly like a wrong password', async () => {
    const wrong = await api.post('/login', {
      body: { login: ana.user.login, password: 'wrong password' },
      ip: nextIp(),
    });
    const unknown = await api.post('/login', {
      body: { login: uniqueMail('nobody'), password: 'wrong password' },
      ip: nextIp(),
    });
    expectError(unknown, 401, 'invalid_credentials', { message: INVALID_LOGIN });
    expect(unknown.body).toEqual(wrong.body);
  });

  it('answers invalid_credentials (not 400) to a password over 1024 characters', async () => {
    const res = await api.post('/login', { body: { login: ana.user.login, password: 'x'.repeat(1025) }, ip: nextIp() });
    expectError(res, 401, 'invalid_credentials', { message: INVALID_LOGIN });
  });

  it('ignores a stale X-AUTH-TOKEN on this open endpoint', async () => {
    const res = await api.post('/login', {
      body: { login: ana.user.login, password: ana.password },
      key: 'stale-key-that-does-not-exist',
      ip: nextIp(),
    });
    expect(res.status).toBe(200);
    expect(res.body.api_key).toBe(ana.key);
  });
});

describe('POST /api/login throttling (§1.6)', () => {
  let t: TestApp;
  let api: ApiClient;
  let ana: BuiltUser;
  beforeEach(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
    ana = await buildUser(t.ctx);
  });
  afterEach(() => t.close());

  const fail = (login: string, ip: string) => api.post('/login', { body: { login, password: 'wrong password' }, ip });
  const succeed = (ip: string) => api.post('/login', { body: { login: ana.user.login, password: ana.password }, ip });

  it('blocks the 11th attempt after 10 failures per login and address, even with the right password', async () => {
    const ip = nextIp();
    for (let i = 0; i < 10; i++) expectError(await fail(ana.user.login, ip), 401, 'invalid_credentials');
    const blocked = await succeed(ip);
    expectThrottled(blocked, 15 * 60);
  });

  it('does not block another address, nor another login from the same address', async () => {
    const ip = nextIp();
    for (let i = 0; i < 10; i++) await fail(ana.user.login, ip);
    expectThrottled(await succeed(ip), 15 * 60);
    const other = await succeed(nextIp());
    expect(other.status).toBe(200);
    expect(other.body.api_key).toBe(ana.key);
    const ben = await buildUser(t.ctx);
    const benLogin = await api.post('/login', { body: { login: ben.user.login, password: ben.password }, ip });
    expect(benLogin.status).toBe(200);
  });

  it('counts the login trimmed and lowercased', async () => {
    const ip = nextIp();
    for (let i = 0; i < 10; i++) await fail(i % 2 === 0 ? ` ${ana.user.login.toUpperCase()} ` : ana.user.login, ip);
    expectThrottled(await succeed(ip), 15 * 60);
  });

  it('unblocks once the 15 minutes have passed', async () => {
    const ip = nextIp();
    for (let i = 0; i < 10; i++) await fail(ana.user.login, ip);
    t.clock.advance(14 * MINUTE);
    expectThrottled(await succeed(ip), 60);
    t.clock.advance(MINUTE + 1000);
    const res = await succeed(ip);
    expect(res.status).toBe(200);
    expect(res.body.api_key).toBe(ana.key);
  });

  it('a successful login clears the failure counter of that login and address', async () => {
    const ip = nextIp();
    for (let i = 0; i < 9; i++) expectError(await fail(ana.user.login, ip), 401, 'invalid_credentials');
    expect((await succeed(ip)).status).toBe(200);
    // Counting starts again from zero: 10 more failures are still answered 401.
    for (let i = 0; i < 10; i++) expectError(await fail(ana.user.login, ip), 401, 'invalid_credentials');
    expectThrottled(await succeed(ip), 15 * 60);
  });

  it('does not count successful logins as failures', async () => {
    const ip = nextIp();
    for (let i = 0; i < 15; i++) expect((await succeed(ip)).status).toBe(200);
  });

  it('throttles unknown logins exactly like known ones', async () => {
    const ip = nextIp();
    const nobody = uniqueMail('nobody');
    for (let i = 0; i < 10; i++) expectError(await fail(nobody, ip), 401, 'invalid_credentials');
    const unknownBlocked = await fail(nobody, ip);
    expectThrottled(unknownBlocked, 15 * 60);
    for (let i = 0; i < 10; i++) await fail(ana.user.login, ip);
    const knownBlocked = await fail(ana.user.login, ip);
    expectThrottled(knownBlocked, 15 * 60);
    expect(unknownBlocked.body).toEqual(knownBlocked.body);
  });

  it('blocks an address after 100 attempts in 15 minutes, successes included', async () => {
    const ip = nextIp();
    for (let i = 0; i < 50; i++) expect((await succeed(ip)).status).toBe(200);
    // Unknown logins, each failing at most a few times, so no per-login counter is reached.
    for (let i = 0; i < 50; i++) expectError(await fail(`nobody${i % 25}@example.org`, ip), 401, 'invalid_credentials');
    expectThrottled(await succeed(ip), 15 * 60);
    expectThrottled(await fail(uniqueMail('fresh'), ip), 15 * 60);
    expect((await succeed(nextIp())).status).toBe(200);
    t.clock.advance(15 * MINUTE + 1000);
    expect((await succeed(ip)).status).toBe(200);
  });

  it('blocks a login after 50 failures in an hour from all addresses', async () => {
    for (let a = 0; a < 5; a++) {
      const ip = nextIp();
      for (let i = 0; i < 10; i++) expectError(await fail(ana.user.login, ip), 401, 'invalid_credentials');
    }
    expectThrottled(await succeed(nextIp()), 60 * 60);
    t.clock.advance(HOUR + 1000);
    expect((await succeed(nextIp())).status).toBe(200);
  });
});

describe('POST /api/signup (§3.3)', () => {
  let t: TestApp;
  let api: ApiClient;
  let ana: BuiltUser;
  let ben: BuiltUser;
  let group: Awaited<ReturnType<typeof buildGroup>>;
  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
    ana = await buildUser(t.ctx, { name: 'Ana' });
    ben = await buildUser(t.ctx, { name: 'Ben' });
    group = await buildGroup(t.ctx, { name: 'Family', members: [ana, ben] });
  });
  afterAll(() => t.close());

  const signup = (body: unknown, ip = nextIp()) => api.post('/signup', { body, ip });
  const notificationsOf = async (key: string) => {
    const res = await api.get('/me/notifications/21', { key });
    expect(res.status).toBe(200);
    return res.body as { type: string; target: string; fromUser: { id: string } | null }[];
  };
  const joinsOf = async (key: string, joinerId: string) =>
    (await notificationsOf(key)).filter((n) => n.type === 'user_joined_group' && n.fromUser?.id === joinerId);

  describe('order of checks', () => {
    it('answers invite_key_required "You need an invitation to sign up" without invite_key', async () => {
      for (const body of [
        { login: uniqueMail(), password: 'long enough password' },
        { login: uniqueMail(), password: 'long enough password', invite_key: '' },
        { login: uniqueMail(), password: 'long enough password', invite_key: null },
      ]) {
        expectError(await signup(body), 400, 'invite_key_required', {
          message: 'You need an invitation to sign up',
        });
      }
    });

    it('answers missing_field without a login or a password', async () => {
      expectError(
        await signup({ password: 'long enough password', invite_key: group.secret_key }),
        400,
        'missing_field',
        { field: 'login' },
      );
      expectError(await signup({ login: uniqueMail(), invite_key: group.secret_key }), 400, 'missing_field', {
        field: 'password',
      });
    });

    it('answers invalid_invite_key "Invalid invite key" before looking at the e-mail or the password', async () => {
      const res = await signup({ login: 'not an e-mail', password: 'short', invite_key: 'no-such-key' });
      expectError(res, 400, 'invalid_invite_key', { message: 'Invalid invite key' });
    });

    it('answers invalid_invite_key before checking an existing login and password', async () => {
      const res = await signup({ login: ana.user.login, password: 'wrong password', invite_key: 'no-such-key' });
      expectError(res, 400, 'invalid_invite_key', { message: 'Invalid invite key' });
    });

    it('answers invalid_email, with a valid key, before looking at the password', async () => {
      for (const login of ['not an e-mail', 'two@at@example.org', 'nodot@example', 'a@b.', '@example.org']) {
        const res = await signup({ login, password: 'short', invite_key: group.secret_key });
        expectError(res, 400, 'invalid_email');
      }
      const tooLong = `${'a'.repeat(250)}@example.org`;
      expectError(
        await signup({ login: tooLong, password: 'long enough password', invite_key: group.secret_key }),
        400,
        'invalid_email',
      );
    });

    it('answers invalid_password to a new login with a password outside 8–128 characters', async () => {
      for (const password of ['1234567', 'x'.repeat(129)]) {
        const login = uniqueMail();
        const res = await signup({ login, password, invite_key: group.secret_key });
        expectError(res, 400, 'invalid_password');
        const failedLogin = await api.post('/login', { body: { login, password }, ip: nextIp() });
        expect(failedLogin.status).toBe(401);
      }
    });

    it('treats a short password for an existing login as a login attempt (401, not invalid_password)', async () => {
      const res = await signup({ login: ana.user.login, password: 'short', invite_key: group.secret_key });
      expectError(res, 401, 'invalid_credentials', { message: INVALID_LOGIN });
    });
  });

  describe('new account', () => {
    it('creates the account and answers {api_key, group} without a message', async () => {
      const res = await signup({
        login: uniqueMail('newbie'),
        password: 'a fine password',
        invite_key: group.secret_key,
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['api_key', 'group']);
      expect(res.body).not.toHaveProperty('message');
      expect(res.body.api_key).toMatch(NEW_KEY);
      expect(res.body.group).toBe(group.id);
    });

    it('names the user from the e-mail, stores it trimmed and lowercased, and sets the defaults', async () => {
      const login = uniqueMail('Carla.Dupont');
      const res = await signup({
        login: `  ${login.toUpperCase()}  `,
        password: 'a fine password',
        invite_key: group.secret_key,
      });
      expect(res.status).toBe(200);
      const me = await api.get('/me', { key: res.body.api_key });
      expect(me.status).toBe(200);
      expect(me.body.login).toBe(login.toLowerCase());
      expect(me.body.name).toBe(login.toLowerCase().split('@')[0]);
      expect(me.body.data.default_group).toBe(group.id);
      expect(me.body.data.notification_emails).toBe('none');
      expect(me.body.groups.map((g: { id: string }) => g.id)).toEqual([group.id]);
    });

    it('takes the name given with the signup, trimmed (Kith addition)', async () => {
      const res = await signup({
        login: uniqueMail('named'),
        password: 'a fine password',
        invite_key: group.secret_key,
        name: '  Carla Dupont  ',
      });
      expect(res.status).toBe(200);
      expect((await api.get('/me', { key: res.body.api_key })).body.name).toBe('Carla Dupont');
    });

    it('names the user from the e-mail when the given name is blank', async () => {
      const login = uniqueMail('blank');
      const res = await signup({ login, password: 'a fine password', invite_key: group.secret_key, name: '   ' });
      expect(res.status).toBe(200);
      expect((await api.get('/me', { key: res.body.api_key })).body.name).toBe(login.split('@')[0]);
    });

    it.each([['<b>Carla</b>'], ['x'.repeat(129)], ['tab\there']])(
      'refuses the name %j with 400 invalid_name and creates no account',
      async (name) => {
        const login = uniqueMail('badname');
        expectError(
          await signup({ login, password: 'a fine password', invite_key: group.secret_key, name }),
          400,
          'invalid_name',
          { field: 'name' },
        );
        // The address is still free: a signup without the bad name creates the account.
        const retry = await signup({ login, password: 'a fine password', invite_key: group.secret_key });
        expect(retry.status).toBe(200);
        expect((await api.get('/me', { key: retry.body.api_key })).body.name).toBe(login.split('@')[0]);
      },
    );

    it('ignores the name for an existing login, which keeps its own', async () => {
      const res = await signup({
        login: ana.user.login,
        password: ana.password,
        invite_key: group.secret_key,
        name: 'Someone Else',
      });
      expect(res.status).toBe(200);
      expect((await api.get('/me', { key: res.body.api_key })).body.name).toBe('Ana');
    });

    it('removes < and > from the name and cuts it to 128 characters', async () => {
      const angled = await signup({
        login: `<b>x${mailCounter}y</b>@example.org`,
        password: 'a fine password',
        invite_key: group.secret_key,
      });
      expect(angled.status).toBe(200);
      const angledMe = await api.get('/me', { key: angled.body.api_key });
      expect(angledMe.body.name).toBe(`bx${mailCounter}y/b`);

      const local = `${'long'.repeat(40)}${mailCounter}`;
      const long = await signup({
        login: `${local}@example.org`,
        password: 'a fine password',
        invite_key: group.secret_key,
      });
      expect(long.status).toBe(200);
      const longMe = await api.get('/me', { key: long.body.api_key });
      expect(longMe.body.name).toBe(local.slice(0, 128));
    });

    it('makes the user a member: the group lists the old members and the new one', async () => {
      const solo = await buildUser(t.ctx, { name: 'Solo' });
      const soloGroup = await buildGroup(t.ctx, { name: 'Solo group', members: [solo] });
      // The factory dates joins a moment after the clock; join later than that.
      t.clock.advance(1000);
      const res = await signup({ login: uniqueMail(), password: 'a fine password', invite_key: soloGroup.secret_key });
      expect(res.status).toBe(200);
      const me = await api.get('/me', { key: res.body.api_key });
      const seenBySolo = await api.get(`/groups/${soloGroup.id}`, { key: solo.key });
      expect(seenBySolo.status).toBe(200);
      expect(seenBySolo.body.users.map((u: { id: string }) => u.id)).toEqual([solo.user.id, me.body.id]);
      const seenByNewcomer = await api.get(`/groups/${soloGroup.id}`, { key: res.body.api_key });
      expect(seenByNewcomer.status).toBe(200);
      expect(seenByNewcomer.body.users).toHaveLength(2);
    });

    it('gives the other members a user_joined_group notification, and the joiner none', async () => {
      const res = await signup({ login: uniqueMail(), password: 'a fine password', invite_key: group.secret_key });
      expect(res.status).toBe(200);
      const me = await api.get('/me', { key: res.body.api_key });
      for (const member of [ana, ben]) {
        const joins = await joinsOf(member.key, me.body.id);
        expect(joins).toHaveLength(1);
        expect(joins[0]).toMatchObject({
          entityType: 'notification',
          type: 'user_joined_group',
          target: group.id,
          read: false,
          data: {},
          fromUser: { id: me.body.id, entityType: 'user', name: me.body.name },
          fromGroup: { id: group.id, entityType: 'group', name: 'Family' },
          fromMessage: null,
        });
      }
      expect(await notificationsOf(res.body.api_key)).toEqual([]);
    });

    it('answers two simultaneous signups of the same new login without a server error', async () => {
      const login = uniqueMail('twice');
      const body = { login, password: 'a fine password', invite_key: group.secret_key };
      const answers = await Promise.all([signup(body), signup(body)]);
      for (const res of answers) expect(res.status).not.toBe(500);
      expect(answers.filter((res) => res.status === 200).length).toBeGreaterThanOrEqual(1);
      const members = await api.get(`/groups/${group.id}`, { key: ana.key });
      const logged = await api.post('/login', { body: { login, password: 'a fine password' }, ip: nextIp() });
      expect(logged.status).toBe(200);
      const me = await api.get('/me', { key: logged.body.api_key });
      expect(members.body.users.filter((u: { id: string }) => u.id === me.body.id)).toHaveLength(1);
    });

    it('uses the new key on every later login', async () => {
      const login = uniqueMail();
      const res = await signup({ login, password: 'a fine password', invite_key: group.secret_key });
      const logged = await api.post('/login', { body: { login, password: 'a fine password' }, ip: nextIp() });
      expect(logged.status).toBe(200);
      expect(logged.body.api_key).toBe(res.body.api_key);
    });

    it('sends no e-mail', async () => {
      const before = t.mailer.sent.length;
      const login = uniqueMail();
      expect((await signup({ login, password: 'a fine password', invite_key: group.secret_key })).status).toBe(200);
      // A reset mail asked afterwards is the first mail to this address.
      await requestResetKey(t, api, login);
      expect(
        t.mailer.sent
          .slice(before)
          .filter((m) => m.to === login)
          .map((m) => m.kind),
      ).toEqual(['password_reset']);
    });

    it('accepts the invite key with surrounding spaces', async () => {
      const res = await signup({
        login: uniqueMail(),
        password: 'a fine password',
        invite_key: ` ${group.secret_key} `,
      });
      expect(res.status).toBe(200);
      expect(res.body.group).toBe(group.id);
    });
  });

  describe('existing login', () => {
    it('joins the group with the right password and answers the same key', async () => {
      const carl = await buildUser(t.ctx, { name: 'Carl' });
      const res = await signup({
        login: `  ${carl.user.login.toUpperCase()} `,
        password: carl.password,
        invite_key: group.secret_key,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ api_key: carl.key, group: group.id });
      const seen = await api.get(`/groups/${group.id}`, { key: carl.key });
      expect(seen.status).toBe(200);
      expect(seen.body.users.map((u: { id: string }) => u.id)).toContain(carl.user.id);
      const joins = await joinsOf(ana.key, carl.user.id);
      expect(joins).toHaveLength(1);
      expect(joins[0]).toMatchObject({ target: group.id, fromGroup: { id: group.id, name: 'Family' } });
      // Logging in through an invitation keeps the password and the key.
      const after = await reloadUser(t.ctx, carl.user.id);
      expect(after?.password_hash).toBe(carl.user.password_hash);
      expect(after?.api_key_hash).toBe(carl.user.api_key_hash);
    });

    it('answers 401 to a wrong password and does not join', async () => {
      const dora = await buildUser(t.ctx, { name: 'Dora' });
      const res = await signup({ login: dora.user.login, password: 'wrong password', invite_key: group.secret_key });
      expectError(res, 401, 'invalid_credentials', { message: INVALID_LOGIN });
      expectError(await api.get(`/groups/${group.id}`, { key: dora.key }), 404, 'not_found');
      expect(await joinsOf(ana.key, dora.user.id)).toEqual([]);
      const me = await api.get('/me', { key: dora.key });
      expect(me.body.groups).toEqual([]);
    });

    it('answers 200 with the same answer to a member, and sends no new notification', async () => {
      const emma = await buildUser(t.ctx, { name: 'Emma' });
      const body = { login: emma.user.login, password: emma.password, invite_key: group.secret_key };
      const first = await signup(body);
      expect(first.status).toBe(200);
      expect(await joinsOf(ana.key, emma.user.id)).toHaveLength(1);
      const second = await signup(body);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(await joinsOf(ana.key, emma.user.id)).toHaveLength(1);
      const members = await api.get(`/groups/${group.id}`, { key: ana.key });
      expect(members.body.users.filter((u: { id: string }) => u.id === emma.user.id)).toHaveLength(1);
    });

    it('answers 200 to a member who signs up again with a new account they created', async () => {
      const login = uniqueMail();
      const body = { login, password: 'a fine password', invite_key: group.secret_key };
      const first = await signup(body);
      expect(first.status).toBe(200);
      const me = await api.get('/me', { key: first.body.api_key });
      const second = await signup(body);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(await joinsOf(ben.key, me.body.id)).toHaveLength(1);
    });

    it('treats simultaneous joins of the same user (a double submit) as one join', async () => {
      // Several users each submit 4 times at once; every submit is a join or a no-op, never a 500.
      const users = await Promise.all(Array.from({ length: 6 }, (_, i) => buildUser(t.ctx, { name: `Racer ${i}` })));
      const submits = users.flatMap((u) =>
        Array.from({ length: 4 }, () =>
          signup({ login: u.user.login, password: u.password, invite_key: group.secret_key }),
        ),
      );
      const answers = await Promise.all(submits);
      expect(answers.map((res) => res.status)).toEqual(answers.map(() => 200));
      answers.forEach((res, i) => {
        expect(res.body).toEqual({ api_key: users[Math.floor(i / 4)]?.key, group: group.id });
      });
      for (const u of users) expect(await joinsOf(ana.key, u.user.id)).toHaveLength(1);
    });

    it('keeps the default group of an existing user who joins another group', async () => {
      const fay = await buildUser(t.ctx, { name: 'Fay' });
      const home = await buildGroup(t.ctx, { name: 'Home', members: [fay] });
      expect((await reloadUser(t.ctx, fay.user.id))?.default_group_id).toBe(home.id);
      t.clock.advance(1000);
      const res = await signup({ login: fay.user.login, password: fay.password, invite_key: group.secret_key });
      expect(res.status).toBe(200);
      const me = await api.get('/me', { key: fay.key });
      expect(me.body.data.default_group).toBe(home.id);
      expect(me.body.groups.map((g: { id: string }) => g.id)).toEqual([home.id, group.id]);
    });
  });

  it('stops accepting a reset invite key at once, and accepts the new one', async () => {
    const gus = await buildUser(t.ctx, { name: 'Gus' });
    const club = await buildGroup(t.ctx, { name: 'Club', members: [gus] });
    const oldKey = club.secret_key;
    const reset = await api.post(`/groups/${club.id}/reset-invite-key`, { key: gus.key });
    expect(reset.status).toBe(200);
    const newKey = reset.body.inviteKey as string;
    expect(newKey).not.toBe(oldKey);
    const withOld = await signup({ login: uniqueMail(), password: 'a fine password', invite_key: oldKey });
    expectError(withOld, 400, 'invalid_invite_key', { message: 'Invalid invite key' });
    const withNew = await signup({ login: uniqueMail(), password: 'a fine password', invite_key: newKey });
    expect(withNew.status).toBe(200);
    expect(withNew.body.group).toBe(club.id);
  });
});

describe('POST /api/signup throttling (§1.6)', () => {
  let t: TestApp;
  let api: ApiClient;
  let group: Awaited<ReturnType<typeof buildGroup>>;
  let ana: BuiltUser;
  beforeEach(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
    ana = await buildUser(t.ctx, { name: 'Ana' });
    group = await buildGroup(t.ctx, { name: 'Family', members: [ana] });
  });
  afterEach(() => t.close());

  it('allows 10 signups per address per hour, then answers 429 before any other check', async () => {
    const ip = nextIp();
    for (let i = 0; i < 10; i++) {
      const res = await api.post('/signup', {
        body: { login: uniqueMail(), password: 'a fine password', invite_key: group.secret_key },
        ip,
      });
      expect(res.status).toBe(200);
    }
    const blocked = await api.post('/signup', {
      body: { login: uniqueMail(), password: 'a fine password', invite_key: group.secret_key },
      ip,
    });
    expectThrottled(blocked, 60 * 60);
    // Throttling comes first (§3.3 step 1): even a body missing everything is answered 429.
    expectThrottled(await api.post('/signup', { body: {}, ip }), 60 * 60);
    const elsewhere = await api.post('/signup', {
      body: { login: uniqueMail(), password: 'a fine password', invite_key: group.secret_key },
      ip: nextIp(),
    });
    expect(elsewhere.status).toBe(200);
    t.clock.advance(HOUR + 1000);
    const later = await api.post('/signup', {
      body: { login: uniqueMail(), password: 'a fine password', invite_key: group.secret_key },
      ip,
    });
    expect(later.status).toBe(200);
  });

  it('counts a wrong password for an existing login as a failed login', async () => {
    const ip = nextIp();
    for (let i = 0; i < 10; i++) {
      const res = await api.post('/signup', {
        body: { login: ana.user.login, password: `wrong password ${i}`, invite_key: group.secret_key },
        ip,
      });
      expectError(res, 401, 'invalid_credentials', { message: INVALID_LOGIN });
    }
    const login = await api.post('/login', { body: { login: ana.user.login, password: ana.password }, ip });
    expectThrottled(login, 15 * 60);
    const elsewhere = await api.post('/login', {
      body: { login: ana.user.login, password: ana.password },
      ip: nextIp(),
    });
    expect(elsewhere.status).toBe(200);
  });

  it('throttles a signup with an existing login once that login is blocked for the address', async () => {
    const ip = nextIp();
    for (let i = 0; i < 10; i++) {
      const res = await api.post('/login', { body: { login: ana.user.login, password: 'wrong password' }, ip });
      expect(res.status).toBe(401);
    }
    const res = await api.post('/signup', {
      body: { login: ana.user.login, password: ana.password, invite_key: group.secret_key },
      ip,
    });
    expectThrottled(res, 15 * 60);
  });
});

describe('POST /api/signup with an instance default for notification e-mails', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeAll(async () => {
    t = await createTestApp({ DEFAULT_NOTIFICATION_EMAILS: 'daily' });
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  it('gives new accounts the instance default', async () => {
    const ana = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [ana] });
    const res = await api.post('/signup', {
      body: { login: uniqueMail(), password: 'a fine password', invite_key: group.secret_key },
      ip: nextIp(),
    });
    expect(res.status).toBe(200);
    const me = await api.get('/me', { key: res.body.api_key });
    expect(me.body.data.notification_emails).toBe('daily');
  });
});

describe('POST /api/password-reset-mail (§3.4)', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  it('answers {} and mails a link with the url-encoded address and a key', async () => {
    const ana = await buildUser(t.ctx, { login: `ana+reset${mailCounter}@example.org` });
    const before = t.mailer.sent.length;
    const res = await api.post('/password-reset-mail', { body: { mail: ana.user.login }, ip: nextIp() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const mail = await mailAfter(t, before, (m) => m.to === ana.user.login);
    expect(mail.kind).toBe('password_reset');
    expect(ana.user.login).toContain('+');
    expect(mail.text).toContain(`http://kith.test/password-reset?mail=${encodeURIComponent(ana.user.login)}&key=`);
    expect(mail.text).not.toContain(`mail=${ana.user.login}`);
    const key = resetKeyOf(mail, ana.user.login);
    expect(key).toMatch(NEW_KEY);
  });

  it('trims and lowercases the address', async () => {
    const ben = await buildUser(t.ctx);
    const before = t.mailer.sent.length;
    const res = await api.post('/password-reset-mail', {
      body: { mail: `  ${ben.user.login.toUpperCase()} ` },
      ip: nextIp(),
    });
    expect(res.status).toBe(200);
    const mail = await mailAfter(t, before, (m) => m.to === ben.user.login);
    resetKeyOf(mail, ben.user.login);
  });

  it('answers an unknown address exactly like a known one, and sends nothing', async () => {
    const unknown = uniqueMail('ghost');
    const res = await api.post('/password-reset-mail', { body: { mail: unknown }, ip: nextIp() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(res.text).toBe('{}');
    // A mail for a known address asked afterwards arrives; none went to the unknown one before it.
    const known = await buildUser(t.ctx);
    await requestResetKey(t, api, known.user.login);
    expect(t.mailer.sent.filter((m) => m.to === unknown)).toEqual([]);
  });

  it('answers 200 to a 4th request within an hour but sends nothing, and keeps the last key', async () => {
    const cleo = await buildUser(t.ctx);
    const other = await buildUser(t.ctx);
    await requestResetKey(t, api, cleo.user.login);
    await requestResetKey(t, api, cleo.user.login);
    const third = await requestResetKey(t, api, cleo.user.login);
    t.clock.advance(30 * MINUTE);
    const fourth = await api.post('/password-reset-mail', { body: { mail: cleo.user.login }, ip: nextIp() });
    expect(fourth.status).toBe(200);
    expect(fourth.body).toEqual({});
    await requestResetKey(t, api, other.user.login);
    expect(t.mailer.sent.filter((m) => m.to === cleo.user.login)).toHaveLength(3);
    // The request that sent nothing cancelled nothing either.
    const reset = await api.post('/new-password', {
      body: { mail: cleo.user.login, key: third, password: 'a brand new password' },
      ip: nextIp(),
    });
    expect(reset.status).toBe(200);
  });

  it('sends again once the hour has passed', async () => {
    const dan = await buildUser(t.ctx);
    for (let i = 0; i < 3; i++) await requestResetKey(t, api, dan.user.login);
    t.clock.advance(HOUR + 1000);
    const key = await requestResetKey(t, api, dan.user.login);
    expect(t.mailer.sent.filter((m) => m.to === dan.user.login)).toHaveLength(4);
    expect(key).toMatch(NEW_KEY);
  });

  it('cancels the earlier key when a new one is sent', async () => {
    const eve = await buildUser(t.ctx);
    const first = await requestResetKey(t, api, eve.user.login);
    const second = await requestResetKey(t, api, eve.user.login);
    expect(second).not.toBe(first);
    const withFirst = await api.post('/new-password', {
      body: { mail: eve.user.login, key: first, password: 'a brand new password' },
      ip: nextIp(),
    });
    expectError(withFirst, 400, 'invalid_reset_key');
    const withSecond = await api.post('/new-password', {
      body: { mail: eve.user.login, key: second, password: 'a brand new password' },
      ip: nextIp(),
    });
    expect(withSecond.status).toBe(200);
  });

  it('answers missing_field without a mail', async () => {
    for (const body of [{}, { mail: '' }, { mail: '   ' }, { mail: null }]) {
      expectError(await api.post('/password-reset-mail', { body, ip: nextIp() }), 400, 'missing_field', {
        field: 'mail',
      });
    }
  });
});

describe('POST /api/password-reset-mail throttling (§1.6)', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeEach(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
  });
  afterEach(() => t.close());

  it('allows 10 requests per address per hour, then answers 429', async () => {
    const ip = nextIp();
    for (let i = 0; i < 10; i++) {
      const res = await api.post('/password-reset-mail', { body: { mail: uniqueMail('ghost') }, ip });
      expect(res.status).toBe(200);
    }
    const ana = await buildUser(t.ctx);
    const before = t.mailer.sent.length;
    const blocked = await api.post('/password-reset-mail', { body: { mail: ana.user.login }, ip });
    expectThrottled(blocked, 60 * 60);
    const elsewhere = await api.post('/password-reset-mail', { body: { mail: ana.user.login }, ip: nextIp() });
    expect(elsewhere.status).toBe(200);
    await mailAfter(t, before, (m) => m.to === ana.user.login);
    // Only the request that was let through sent a mail.
    expect(t.mailer.sent.slice(before).filter((m) => m.to === ana.user.login)).toHaveLength(1);
    t.clock.advance(HOUR + 1000);
    expect((await api.post('/password-reset-mail', { body: { mail: uniqueMail() }, ip })).status).toBe(200);
  });
});

describe('POST /api/password-reset-mail without e-mail', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeAll(async () => {
    t = await createTestApp({ ALLOW_EMAIL: 'false' });
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  it('answers 503 email_disabled and sends nothing', async () => {
    const ana = await buildUser(t.ctx);
    const res = await api.post('/password-reset-mail', { body: { mail: ana.user.login }, ip: nextIp() });
    expectError(res, 503, 'email_disabled');
    const unknown = await api.post('/password-reset-mail', { body: { mail: uniqueMail() }, ip: nextIp() });
    expectError(unknown, 503, 'email_disabled');
    expect(unknown.body).toEqual(res.body);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(t.mailer.sent).toEqual([]);
  });
});

describe('POST /api/new-password (§3.5)', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  const newPassword = (body: unknown, ip = nextIp()) => api.post('/new-password', { body, ip });

  it('sets the password, answers a new api_key and retires the old one', async () => {
    const ana = await buildUser(t.ctx);
    const key = await requestResetKey(t, api, ana.user.login);
    const before = t.mailer.sent.length;
    const res = await newPassword({ mail: ana.user.login, key, password: 'a brand new password' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['api_key']);
    expect(res.body.api_key).toMatch(NEW_KEY);
    expect(res.body.api_key).not.toBe(ana.key);

    const me = await api.get('/me', { key: res.body.api_key });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(ana.user.id);
    expectError(await api.get('/me', { key: ana.key }), 401, 'invalid_api_key', { colonFree: false });

    const withNew = await api.post('/login', {
      body: { login: ana.user.login, password: 'a brand new password' },
      ip: nextIp(),
    });
    expect(withNew.status).toBe(200);
    expect(withNew.body.api_key).toBe(res.body.api_key);
    const withOld = await api.post('/login', { body: { login: ana.user.login, password: ana.password }, ip: nextIp() });
    expectError(withOld, 401, 'invalid_credentials', { message: INVALID_LOGIN });

    const mail = await mailAfter(t, before, (m) => m.kind === 'password_changed');
    expect(mail.to).toBe(ana.user.login);
  });

  it('trims and lowercases the mail', async () => {
    const ben = await buildUser(t.ctx);
    const key = await requestResetKey(t, api, ben.user.login);
    const res = await newPassword({
      mail: `  ${ben.user.login.toUpperCase()} `,
      key,
      password: 'a brand new password',
    });
    expect(res.status).toBe(200);
    expect(res.body.api_key).toMatch(NEW_KEY);
  });

  it('accepts a key only once', async () => {
    const cleo = await buildUser(t.ctx);
    const key = await requestResetKey(t, api, cleo.user.login);
    const first = await newPassword({ mail: cleo.user.login, key, password: 'a brand new password' });
    expect(first.status).toBe(200);
    const second = await newPassword({ mail: cleo.user.login, key, password: 'another new password' });
    expectError(second, 400, 'invalid_reset_key');
    const login = await api.post('/login', {
      body: { login: cleo.user.login, password: 'a brand new password' },
      ip: nextIp(),
    });
    expect(login.status).toBe(200);
    expect(login.body.api_key).toBe(first.body.api_key);
  });

  it('accepts a key only once even when two requests race', async () => {
    const kim = await buildUser(t.ctx);
    const key = await requestResetKey(t, api, kim.user.login);
    const answers = await Promise.all([
      newPassword({ mail: kim.user.login, key, password: 'first new password' }),
      newPassword({ mail: kim.user.login, key, password: 'second new password' }),
    ]);
    expect(answers.map((res) => res.status).sort()).toEqual([200, 400]);
    const loser = answers.find((res) => res.status === 400);
    expectError(loser as ApiResponse, 400, 'invalid_reset_key');
    const winner = answers.find((res) => res.status === 200);
    expect((await api.get('/me', { key: winner?.body.api_key })).status).toBe(200);
  });

  it('accepts a key for just under an hour, then answers invalid_reset_key', async () => {
    const dan = await buildUser(t.ctx);
    const fresh = await requestResetKey(t, api, dan.user.login);
    t.clock.advance(59 * MINUTE);
    expect((await newPassword({ mail: dan.user.login, key: fresh, password: 'a brand new password' })).status).toBe(
      200,
    );

    const eve = await buildUser(t.ctx);
    const stale = await requestResetKey(t, api, eve.user.login);
    t.clock.advance(61 * MINUTE);
    const res = await newPassword({ mail: eve.user.login, key: stale, password: 'a brand new password' });
    expectError(res, 400, 'invalid_reset_key');
    const login = await api.post('/login', { body: { login: eve.user.login, password: eve.password }, ip: nextIp() });
    expect(login.status).toBe(200);
  });

  it('answers invalid_reset_key to a key issued for another e-mail, and leaves the key usable', async () => {
    const fay = await buildUser(t.ctx);
    const gus = await buildUser(t.ctx);
    const key = await requestResetKey(t, api, fay.user.login);
    const res = await newPassword({ mail: gus.user.login, key, password: 'a brand new password' });
    expectError(res, 400, 'invalid_reset_key');
    expect((await api.get('/me', { key: gus.key })).status).toBe(200);
    expect((await newPassword({ mail: fay.user.login, key, password: 'a brand new password' })).status).toBe(200);
  });

  it('answers the same invalid_reset_key to an unknown e-mail and to a wrong key', async () => {
    const hal = await buildUser(t.ctx);
    await requestResetKey(t, api, hal.user.login);
    const wrongKey = await newPassword({ mail: hal.user.login, key: 'x'.repeat(43), password: 'a brand new password' });
    const unknownMail = await newPassword({
      mail: uniqueMail(),
      key: 'x'.repeat(43),
      password: 'a brand new password',
    });
    expectError(wrongKey, 400, 'invalid_reset_key');
    expectError(unknownMail, 400, 'invalid_reset_key');
    expect(unknownMail.body).toEqual(wrongKey.body);
  });

  it('answers invalid_password to a password outside 8–128 characters, and keeps the key', async () => {
    const ivy = await buildUser(t.ctx);
    const key = await requestResetKey(t, api, ivy.user.login);
    for (const password of ['1234567', 'x'.repeat(129)]) {
      expectError(await newPassword({ mail: ivy.user.login, key, password }), 400, 'invalid_password');
    }
    expect((await api.get('/me', { key: ivy.key })).status).toBe(200);
    expect((await newPassword({ mail: ivy.user.login, key, password: '12345678' })).status).toBe(200);
  });

  it('answers missing_field for each missing field', async () => {
    const body = { mail: 'someone@example.org', key: 'x'.repeat(43), password: 'a brand new password' };
    for (const field of ['mail', 'key', 'password'] as const) {
      const { [field]: _dropped, ...rest } = body;
      expectError(await newPassword(rest), 400, 'missing_field', { field });
      expectError(await newPassword({ ...rest, [field]: '' }), 400, 'missing_field', { field });
    }
  });

  it('spends every reset key of the account', async () => {
    const jo = await buildUser(t.ctx);
    const first = await requestResetKey(t, api, jo.user.login);
    const second = await requestResetKey(t, api, jo.user.login);
    expect((await newPassword({ mail: jo.user.login, key: second, password: 'a brand new password' })).status).toBe(
      200,
    );
    expectError(
      await newPassword({ mail: jo.user.login, key: first, password: 'another new password' }),
      400,
      'invalid_reset_key',
    );
    const after = await reloadUser(t.ctx, jo.user.id);
    expect(after?.api_key_version).toBe(jo.user.api_key_version + 1);
  });
});

describe('POST /api/new-password throttling (§1.6)', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeEach(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
  });
  afterEach(() => t.close());

  it('blocks an address after 10 failed attempts in 15 minutes, even with a valid key', async () => {
    const ana = await buildUser(t.ctx);
    const key = await requestResetKey(t, api, ana.user.login);
    const ip = nextIp();
    for (let i = 0; i < 10; i++) {
      const res = await api.post('/new-password', {
        body: { mail: ana.user.login, key: `wrong-key-${i}`, password: 'a brand new password' },
        ip,
      });
      expectError(res, 400, 'invalid_reset_key');
    }
    const blocked = await api.post('/new-password', {
      body: { mail: ana.user.login, key, password: 'a brand new password' },
      ip,
    });
    expectThrottled(blocked, 15 * 60);
    // The key was not spent by the blocked attempt; another address can still use it.
    const elsewhere = await api.post('/new-password', {
      body: { mail: ana.user.login, key, password: 'a brand new password' },
      ip: nextIp(),
    });
    expect(elsewhere.status).toBe(200);
  });

  it('does not count successful resets, and unblocks after 15 minutes', async () => {
    const ip = nextIp();
    for (let i = 0; i < 9; i++) {
      const res = await api.post('/new-password', {
        body: { mail: uniqueMail(), key: 'x'.repeat(43), password: 'a brand new password' },
        ip,
      });
      expect(res.status).toBe(400);
    }
    const ben = await buildUser(t.ctx);
    const key = await requestResetKey(t, api, ben.user.login);
    const ok = await api.post('/new-password', {
      body: { mail: ben.user.login, key, password: 'a brand new password' },
      ip,
    });
    expect(ok.status).toBe(200);
    const tenth = await api.post('/new-password', {
      body: { mail: uniqueMail(), key: 'x'.repeat(43), password: 'a brand new password' },
      ip,
    });
    expectError(tenth, 400, 'invalid_reset_key');
    const eleventh = await api.post('/new-password', {
      body: { mail: uniqueMail(), key: 'x'.repeat(43), password: 'a brand new password' },
      ip,
    });
    expectThrottled(eleventh, 15 * 60);
    t.clock.advance(15 * MINUTE + 1000);
    const later = await api.post('/new-password', {
      body: { mail: uniqueMail(), key: 'x'.repeat(43), password: 'a brand new password' },
      ip,
    });
    expectError(later, 400, 'invalid_reset_key');
  });
});
