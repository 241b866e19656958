import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../../test/client.js';
import { buildGroup, buildUser, reloadUser, type BuiltUser } from '../../../test/factories.js';
import { toSeconds } from '../../lib/clock.js';
import { expectError, UUID_V4 as UUID } from '../../../test/expect.js';
import { useTestApp } from '../../../test/harness.js';

/** Parsed JSON of an answer (the client types it loosely on purpose). */
type Json = ApiResponse['body'];

describe('GET /api/me', () => {
  const h = useTestApp();

  it('answers the Me object of §2.1 with groups in join order, oldest first', async () => {
    const { t, api } = h;
    const me = await buildUser(t.ctx, { name: 'Ana', login: 'ana-me@example.org' });
    // Join order differs from alphabetical order and (most likely) from id order.
    const zeta = await buildGroup(t.ctx, { name: 'Zeta', members: [me] });
    t.clock.advance(5_000);
    const alpha = await buildGroup(t.ctx, { name: 'Alpha', members: [me] });
    t.clock.advance(5_000);
    const created = await api.post('/groups', { key: me.key, body: { name: 'Mid' } });
    expect(created.status).toBe(201);

    const res = await api.get('/me', { key: me.key });
    expect(res.status).toBe(200);
    const row = await reloadUser(t.ctx, me.user.id);
    expect(res.body).toEqual({
      id: me.user.id,
      entityType: 'user',
      name: 'Ana',
      login: 'ana-me@example.org',
      avatar: null,
      groups: [
        { id: zeta.id, entityType: 'group', name: 'Zeta' },
        { id: alpha.id, entityType: 'group', name: 'Alpha' },
        { id: created.body.id, entityType: 'group', name: 'Mid' },
      ],
      // The first group joined became the default; the other two keys were never set.
      data: { default_group: zeta.id },
      createdAt: toSeconds(me.user.created_at),
      lastActivityDate: toSeconds(row!.last_activity_date),
    });
    expect(Number.isInteger(res.body.createdAt)).toBe(true);
    expect(Number.isInteger(res.body.lastActivityDate)).toBe(true);
    expect(res.body).not.toHaveProperty('apiKey');
    expect(res.body).not.toHaveProperty('api_key');
    expect(res.body).not.toHaveProperty('password');
  });

  it('has an empty data object and no groups for a user who never set anything', async () => {
    const { t, api } = h;
    const me = await buildUser(t.ctx);
    const res = await api.get('/me', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body.groups).toEqual([]);
    expect(res.body.data).toEqual({});
    expect(res.body.avatar).toBeNull();
  });

  it('shows exactly the data keys that were set', async () => {
    const { t, api } = h;
    const me = await buildUser(t.ctx, { notificationEmails: 'weekly' });
    const res = await api.get('/me', { key: me.key });
    expect(res.body.data).toEqual({ notification_emails: 'weekly' });
  });

  it('answers 401 auth_required without a key and 401 invalid_api_key with a bad one', async () => {
    const { api } = h;
    expectError(await api.get('/me'), 401, 'auth_required');
    expectError(await api.get('/me', { key: 'not-a-live-key' }), 401, 'invalid_api_key');
    expectError(await api.get('/me', { key: randomUUID() }), 401, 'invalid_api_key');
  });
});

describe('GET /api/users/{id}', () => {
  const h = useTestApp();
  let ana: BuiltUser;
  let ben: BuiltUser;
  let stranger: BuiltUser;

  beforeAll(async () => {
    const { t } = h;
    ana = await buildUser(t.ctx, { name: 'Ana' });
    ben = await buildUser(t.ctx, { name: 'Ben' });
    stranger = await buildUser(t.ctx, { name: 'Stranger' });
    await buildGroup(t.ctx, { name: 'Family', members: [ana, ben] });
    await buildGroup(t.ctx, { name: 'Elsewhere', members: [stranger] });
  });

  it('answers the Me object for the caller, the same as GET /api/me', async () => {
    const { api } = h;
    const res = await api.get(`/users/${ana.user.id}`, { key: ana.key });
    expect(res.status).toBe(200);
    expect(res.body.login).toBe(ana.user.login);
    expect(res.body.groups).toHaveLength(1);
    expect(res.body).toEqual((await api.get('/me', { key: ana.key })).body);
  });

  it('answers only id, entityType, name and avatar for a member of a shared group', async () => {
    const { api } = h;
    const res = await api.get(`/users/${ben.user.id}`, { key: ana.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: ben.user.id, entityType: 'user', name: 'Ben', avatar: null });
    expect(res.body).not.toHaveProperty('login');
    expect(res.body).not.toHaveProperty('data');
  });

  it('sends Cache-Control private, max-age=300', async () => {
    const { api } = h;
    const other = await api.get(`/users/${ben.user.id}`, { key: ana.key });
    expect(other.headers['cache-control']).toBe('private, max-age=300');
    const self = await api.get(`/users/${ana.user.id}`, { key: ana.key });
    expect(self.headers['cache-control']).toBe('private, max-age=300');
  });

  it('answers 404 not_found for a user who shares no group with the caller', async () => {
    const { api } = h;
    expectError(await api.get(`/users/${stranger.user.id}`, { key: ana.key }), 404, 'not_found');
    expectError(await api.get(`/users/${ana.user.id}`, { key: stranger.key }), 404, 'not_found');
  });

  it('keeps showing someone who caused one of my notifications after they left the group', async () => {
    const { t, api } = h;
    const owner = await buildUser(t.ctx, { name: 'Owner' });
    const visitor = await buildUser(t.ctx, { name: 'Visitor' });
    const group = await buildGroup(t.ctx, { name: 'Club', members: [owner] });
    // The visitor joins through the API (the owner is notified), then leaves.
    expect((await api.post(`/groups/invitation/${group.secret_key}`, { key: visitor.key, body: {} })).status).toBe(200);
    expect((await api.get(`/users/${visitor.user.id}`, { key: owner.key })).status).toBe(200);
    expect((await api.post(`/groups/${group.id}/leave`, { key: visitor.key })).status).toBe(200);

    const res = await api.get(`/users/${visitor.user.id}`, { key: owner.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: visitor.user.id, entityType: 'user', name: 'Visitor', avatar: null });
    // The rule goes one way only: the visitor holds no notification from the owner.
    expectError(await api.get(`/users/${owner.user.id}`, { key: visitor.key }), 404, 'not_found');

    // Once the owner deletes those notifications, nothing links them any more.
    const list = await api.get('/me/notifications', { key: owner.key });
    const fromVisitor = list.body.filter((n: Json) => n.fromUser?.id === visitor.user.id);
    expect(fromVisitor.map((n: Json) => n.type).sort()).toEqual(['user_joined_group', 'user_left_group']);
    for (const n of fromVisitor) {
      expect((await api.delete(`/notifications/${n.id}`, { key: owner.key })).status).toBe(204);
    }
    expectError(await api.get(`/users/${visitor.user.id}`, { key: owner.key }), 404, 'not_found');
  });

  it('answers 404 for an unknown id and for a path segment that is not a UUID', async () => {
    const { api } = h;
    expectError(await api.get(`/users/${randomUUID()}`, { key: ana.key }), 404, 'not_found');
    expectError(await api.get('/users/not-a-uuid', { key: ana.key }), 404, 'not_found');
    expectError(await api.get('/users/12345', { key: ana.key }), 404, 'not_found');
  });

  it('lowercases the id before the lookup', async () => {
    const { api } = h;
    const other = await api.get(`/users/${ben.user.id.toUpperCase()}`, { key: ana.key });
    expect(other.status).toBe(200);
    expect(other.body.id).toBe(ben.user.id);
    const self = await api.get(`/users/${ana.user.id.toUpperCase()}`, { key: ana.key });
    expect(self.status).toBe(200);
    expect(self.body.id).toBe(ana.user.id);
    expect(self.body.login).toBe(ana.user.login);
  });

  it('answers 401 without a key', async () => {
    const { api } = h;
    expectError(await api.get(`/users/${ben.user.id}`), 401, 'auth_required');
  });
});

describe('PUT /api/users/{id}', () => {
  const h = useTestApp();

  async function me(key: string) {
    const res = await h.api.get('/me', { key });
    expect(res.status).toBe(200);
    return res.body;
  }

  describe('who may write', () => {
    it("answers 403 forbidden for another user's id and changes nothing", async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx, { name: 'Ana' });
      const ben = await buildUser(t.ctx, { name: 'Ben' });
      await buildGroup(t.ctx, { members: [ana, ben] });
      const res = await api.put(`/users/${ben.user.id}`, { key: ana.key, body: { name: 'Hacked' } });
      expectError(res, 403, 'forbidden');
      expect((await me(ben.key)).name).toBe('Ben');
      expect((await me(ana.key)).name).toBe('Ana');
    });

    it('answers 403 forbidden for an id that does not exist', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      expectError(await api.put(`/users/${randomUUID()}`, { key: ana.key, body: { name: 'X' } }), 403, 'forbidden');
    });

    it('answers 401 without a key', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx, { name: 'Ana' });
      expectError(await api.put(`/users/${ana.user.id}`, { body: { name: 'X' } }), 401, 'auth_required');
      expect((await me(ana.key)).name).toBe('Ana');
    });

    it('accepts the own id in upper case', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const res = await api.put(`/users/${ana.user.id.toUpperCase()}`, { key: ana.key, body: { name: 'Upper' } });
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('Upper');
    });
  });

  describe('name', () => {
    it('trims the name and answers the Me object after the change', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx, { name: 'Ana' });
      const group = await buildGroup(t.ctx, { name: 'Family', members: [ana] });
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { name: '  Ana Maria  ' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: ana.user.id,
        entityType: 'user',
        name: 'Ana Maria',
        login: ana.user.login,
        avatar: null,
        groups: [{ id: group.id, entityType: 'group', name: 'Family' }],
        data: { default_group: group.id },
        createdAt: toSeconds(ana.user.created_at),
      });
      expect(Object.keys(res.body).sort()).toEqual(
        ['id', 'entityType', 'name', 'login', 'avatar', 'groups', 'data', 'createdAt', 'lastActivityDate'].sort(),
      );
      expect((await me(ana.key)).name).toBe('Ana Maria');
    });

    it.each([
      ['empty', ''],
      ['blank', '   '],
      ['with <', 'Ana <b>'],
      ['with >', 'Ana > Ben'],
      ['with a control character', 'Ana\u0007'],
      ['with a newline inside', 'Ana\nMaria'],
      ['with a C1 control character', 'Ana\u0085Maria'],
      ['129 characters long', 'a'.repeat(129)],
      ['129 characters long after trimming', ` ${'b'.repeat(129)} `],
    ])('refuses a name %s with 400 invalid_name', async (_label, name) => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx, { name: 'Ana' });
      expectError(
        await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { name } }),
        400,
        'invalid_name',
        'name',
      );
      expect((await me(ana.key)).name).toBe('Ana');
    });

    it('accepts a name of exactly 128 characters (after trimming)', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const name = 'é'.repeat(128);
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { name: `  ${name}\t` } });
      expect(res.status).toBe(200);
      expect(res.body.name).toBe(name);
    });

    it('refuses a name that is not a string with 400 invalid_field', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx, { name: 'Ana' });
      expectError(await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { name: 42 } }), 400, 'invalid_field');
      expect((await me(ana.key)).name).toBe('Ana');
    });
  });

  describe('login', () => {
    it('lowercases and trims the new login and mails the previous address', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx, { login: 'ana-old@example.org' });
      const res = await api.put(`/users/${ana.user.id}`, {
        key: ana.key,
        body: { login: '  Ana-New@Example.ORG ' },
      });
      expect(res.status).toBe(200);
      expect(res.body.login).toBe('ana-new@example.org');
      expect((await me(ana.key)).login).toBe('ana-new@example.org');
      const mail = await t.mailer.waitFor((m) => m.kind === 'login_changed');
      expect(mail.to).toBe('ana-old@example.org');
      // The new address logs in; the old one no longer does.
      const ok = await api.post('/login', { body: { login: 'ANA-NEW@example.org', password: ana.password } });
      expect(ok.status).toBe(200);
      expect(ok.body.api_key).toBe(ana.key);
      expectError(
        await api.post('/login', { body: { login: 'ana-old@example.org', password: ana.password } }),
        401,
        'invalid_credentials',
      );
    });

    it.each([['not-an-email'], ['two@@example.org'], ['ana@localhost'], ['a b@example.org']])(
      'refuses %j with 400 invalid_email',
      async (login) => {
        const { t, api } = h;
        const ana = await buildUser(t.ctx);
        expectError(await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { login } }), 400, 'invalid_email');
        expect((await me(ana.key)).login).toBe(ana.user.login);
      },
    );

    it('answers 409 login_taken when another account uses the address, whatever its case', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const ben = await buildUser(t.ctx, { login: 'ben-taken@example.org' });
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { login: 'BEN-taken@example.org' } });
      expectError(res, 409, 'login_taken');
      expect((await me(ana.key)).login).toBe(ana.user.login);
      expect((await me(ben.key)).login).toBe('ben-taken@example.org');
    });

    it('accepts the own login again (in another case) without a conflict', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx, { login: 'ana-same@example.org' });
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { login: 'ANA-SAME@example.org' } });
      expect(res.status).toBe(200);
      expect(res.body.login).toBe('ana-same@example.org');
    });
  });

  describe('password', () => {
    it('treats "" as unchanged', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { password: '' } });
      expect(res.status).toBe(200);
      const login = await api.post('/login', { body: { login: ana.user.login, password: ana.password } });
      expect(login.status).toBe(200);
    });

    it.each([
      ['7 characters', 'a'.repeat(7)],
      ['129 characters', 'a'.repeat(129)],
    ])('refuses a password of %s with 400 invalid_password', async (_label, password) => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      expectError(
        await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { password } }),
        400,
        'invalid_password',
        'password',
      );
      const login = await api.post('/login', { body: { login: ana.user.login, password: ana.password } });
      expect(login.status).toBe(200);
    });

    it('changes the password without rotating the API key and mails a notice', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { password: 'a brand new secret' } });
      expect(res.status).toBe(200);
      // The key the client holds still works.
      expect((await api.get('/me', { key: ana.key })).status).toBe(200);
      const login = await api.post('/login', { body: { login: ana.user.login, password: 'a brand new secret' } });
      expect(login.status).toBe(200);
      expect(login.body.api_key).toBe(ana.key);
      expectError(
        await api.post('/login', { body: { login: ana.user.login, password: ana.password } }),
        401,
        'invalid_credentials',
      );
      const mail = await t.mailer.waitFor((m) => m.kind === 'password_changed' && m.to === ana.user.login);
      expect(mail.to).toBe(ana.user.login);
    });

    it('accepts a password of exactly 8 characters', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      expect((await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { password: '12345678' } })).status).toBe(
        200,
      );
      const login = await api.post('/login', { body: { login: ana.user.login, password: '12345678' } });
      expect(login.status).toBe(200);
    });
  });

  describe('data.notification_emails', () => {
    it.each([['none'], ['hourly'], ['daily'], ['weekly'], ['monthly']])('accepts %s', async (frequency) => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const res = await api.put(`/users/${ana.user.id}`, {
        key: ana.key,
        body: { data: { notification_emails: frequency } },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.notification_emails).toBe(frequency);
      expect((await me(ana.key)).data.notification_emails).toBe(frequency);
    });

    it('refuses another value with 400 invalid_field on data.notification_emails', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx, { notificationEmails: 'daily' });
      expectError(
        await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { notification_emails: 'often' } } }),
        400,
        'invalid_field',
        'data.notification_emails',
      );
      expect((await me(ana.key)).data.notification_emails).toBe('daily');
    });
  });

  describe('data.lang', () => {
    it.each([['fr_FR'], ['zgh'], ['zh_Hans'], ['en_US']])('accepts %s', async (lang) => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { lang } } });
      expect(res.status).toBe(200);
      expect(res.body.data.lang).toBe(lang);
      expect((await me(ana.key)).data.lang).toBe(lang);
    });

    it.each([['fr-FR!'], ['fr-FR'], ['fr_FRANCE'], ['<script>']])(
      'refuses %j with 400 invalid_field on data.lang',
      async (lang) => {
        const { t, api } = h;
        const ana = await buildUser(t.ctx);
        expectError(
          await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { lang } } }),
          400,
          'invalid_field',
          'data.lang',
        );
        expect((await me(ana.key)).data).not.toHaveProperty('lang');
      },
    );
  });

  describe('data.theme (Kith addition)', () => {
    it.each([['system'], ['light'], ['dark']])('accepts %s and answers it in the Me object', async (theme) => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { theme } } });
      expect(res.status).toBe(200);
      expect(res.body.data.theme).toBe(theme);
      expect((await me(ana.key)).data.theme).toBe(theme);
    });

    it('is absent from data until it is chosen', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      expect((await me(ana.key)).data).not.toHaveProperty('theme');
      // Another data key leaves it unset; a later change keeps the other keys.
      await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { lang: 'fr_FR' } } });
      expect((await me(ana.key)).data).not.toHaveProperty('theme');
      await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { theme: 'dark' } } });
      expect((await me(ana.key)).data).toMatchObject({ lang: 'fr_FR', theme: 'dark' });
    });

    it.each([['Dark'], ['blue'], [''], [1]])(
      'refuses %j with 400 invalid_field on data.theme and changes nothing',
      async (theme) => {
        const { t, api } = h;
        const ana = await buildUser(t.ctx);
        await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { theme: 'light' } } });
        expectError(
          await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { name: 'Renamed', data: { theme } } }),
          400,
          'invalid_field',
          'data.theme',
        );
        const after = await me(ana.key);
        expect(after.data.theme).toBe('light');
        expect(after.name).not.toBe('Renamed');
      },
    );
  });

  describe('data.default_group', () => {
    it('accepts a group the caller belongs to, as a string or as {id}', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const first = await buildGroup(t.ctx, { members: [ana] });
      const second = await buildGroup(t.ctx, { members: [ana] });
      expect((await me(ana.key)).data.default_group).toBe(first.id);

      const res = await api.put(`/users/${ana.user.id}`, {
        key: ana.key,
        body: { data: { default_group: second.id } },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.default_group).toBe(second.id);
      expect((await me(ana.key)).data.default_group).toBe(second.id);

      const again = await api.put(`/users/${ana.user.id}`, {
        key: ana.key,
        body: { data: { default_group: { id: first.id, entityType: 'group' } } },
      });
      expect(again.status).toBe(200);
      expect((await me(ana.key)).data.default_group).toBe(first.id);
    });

    it('refuses a group the caller is not in, an unknown id and a malformed id with invalid_field', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const ben = await buildUser(t.ctx);
      const mine = await buildGroup(t.ctx, { members: [ana] });
      const theirs = await buildGroup(t.ctx, { members: [ben] });
      for (const value of [theirs.id, randomUUID(), 'not-a-group', { id: theirs.id }]) {
        expectError(
          await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { default_group: value } } }),
          400,
          'invalid_field',
          'data.default_group',
        );
      }
      expect((await me(ana.key)).data.default_group).toBe(mine.id);
    });

    it.each([[''], [null]])('clears it with %j, so the key disappears from /api/me', async (value) => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      await buildGroup(t.ctx, { members: [ana] });
      expect((await me(ana.key)).data).toHaveProperty('default_group');
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { default_group: value } } });
      expect(res.status).toBe(200);
      expect(res.body.data).not.toHaveProperty('default_group');
      expect((await me(ana.key)).data).not.toHaveProperty('default_group');
      expect((await me(ana.key)).data).toEqual({});
    });

    it('keeps it when data is sent without default_group (data is merged key by key)', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx, { notificationEmails: 'daily' });
      const group = await buildGroup(t.ctx, { members: [ana] });
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { lang: 'fr_FR' } } });
      expect(res.status).toBe(200);
      expect((await me(ana.key)).data).toEqual({
        notification_emails: 'daily',
        default_group: group.id,
        lang: 'fr_FR',
      });
    });
  });

  describe('avatar', () => {
    it('refuses any file id with 400 invalid_avatar while no upload exists', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      for (const avatar of [randomUUID(), { id: randomUUID(), entityType: 'file' }]) {
        expectError(
          await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { avatar } }),
          400,
          'invalid_avatar',
          'avatar',
        );
      }
      expect((await me(ana.key)).avatar).toBeNull();
    });

    it('accepts avatar null', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { avatar: null } });
      expect(res.status).toBe(200);
      expect(res.body.avatar).toBeNull();
    });
  });

  describe('a whole call', () => {
    it('changes nothing when one field is refused', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx, { name: 'Ana', notificationEmails: 'daily' });
      const before = await me(ana.key);
      const res = await api.put(`/users/${ana.user.id}`, {
        key: ana.key,
        body: {
          name: 'Valid New Name',
          login: 'ana-renamed-refused@example.org',
          data: { notification_emails: 'weekly', lang: 'fr-FR!' },
        },
      });
      expectError(res, 400, 'invalid_field', 'data.lang');
      const after = await me(ana.key);
      expect(after.name).toBe('Ana');
      expect(after.login).toBe(ana.user.login);
      expect(after.data).toEqual({ notification_emails: 'daily' });
      expect(after).toEqual(before);
    });

    it('does not change the password when another field of the same call is refused', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const res = await api.put(`/users/${ana.user.id}`, {
        key: ana.key,
        body: { password: 'another long password', name: 'Ana<' },
      });
      expectError(res, 400, 'invalid_name');
      const login = await api.post('/login', { body: { login: ana.user.login, password: ana.password } });
      expect(login.status).toBe(200);
    });

    it('ignores unknown and server-owned top-level fields', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const ben = await buildUser(t.ctx);
      const group = await buildGroup(t.ctx, { name: 'Family', members: [ana] });
      const res = await api.put(`/users/${ana.user.id}`, {
        key: ana.key,
        body: {
          id: ben.user.id,
          entityType: 'group',
          groups: [],
          createdAt: 0,
          lastActivityDate: 0,
          secretKey: 'x',
          favouriteColour: 'green',
          name: 'Still Ana',
        },
      });
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(ana.user.id);
      expect(res.body.entityType).toBe('user');
      expect(res.body.name).toBe('Still Ana');
      expect(res.body.groups).toEqual([{ id: group.id, entityType: 'group', name: 'Family' }]);
      expect(res.body.createdAt).toBe(toSeconds(ana.user.created_at));
      expect(res.body).not.toHaveProperty('favouriteColour');
      expect((await me(ben.key)).name).toBe(ben.user.name);
    });

    it('answers the unchanged Me object for an empty body', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx, { name: 'Ana' });
      const before = await me(ana.key);
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: {} });
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('Ana');
      expect(res.body.data).toEqual(before.data);
    });

    it('answers 400 invalid_json for a body that is not an object', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      expectError(await api.put(`/users/${ana.user.id}`, { key: ana.key, body: '[1,2]' }), 400, 'invalid_json');
      expectError(await api.put(`/users/${ana.user.id}`, { key: ana.key, body: '{oops' }), 400, 'invalid_json');
    });

    it('updates lastActivityDate on a successful write', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const before = await me(ana.key);
      expect(before.lastActivityDate).toBe(toSeconds(ana.user.last_activity_date));
      t.clock.advance(3_600_000);
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { name: 'Active' } });
      expect(res.status).toBe(200);
      const after = await me(ana.key);
      expect(after.lastActivityDate).toBe(toSeconds(t.clock.now()));
      expect(after.lastActivityDate).toBeGreaterThanOrEqual(before.lastActivityDate + 3600);
    });

    it('writes the activity once per second: a second write within it leaves the row alone', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      t.clock.advance(3_600_000 - (t.clock.now() % 1000));
      const activity = () =>
        t.ctx.db.kysely
          .selectFrom('users')
          .select('last_activity_date')
          .where('id', '=', ana.user.id)
          .executeTakeFirstOrThrow();
      // Creating groups: a write whose own service does not touch the user's row.
      const write = (name: string) => api.post('/groups', { key: ana.key, body: { name } });
      expect((await write('One')).status).toBe(201);
      const first = (await activity()).last_activity_date;
      expect(first).toBe(t.clock.now());
      t.clock.advance(400);
      expect((await write('Two')).status).toBe(201);
      // Same second as shown (lastActivityDate is in seconds): no write.
      expect((await activity()).last_activity_date).toBe(first);
      t.clock.advance(600);
      expect((await write('Three')).status).toBe(201);
      expect((await activity()).last_activity_date).toBe(t.clock.now());
      expect((await me(ana.key)).lastActivityDate).toBe(toSeconds(t.clock.now()));
    });

    it('answers a Me object that already carries the new lastActivityDate', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      t.clock.advance(7_200_000);
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { name: 'Active Again' } });
      expect(res.status).toBe(200);
      expect(res.body.lastActivityDate).toBe(toSeconds(t.clock.now()));
    });

    it('does not update lastActivityDate when the write is refused', async () => {
      const { t, api } = h;
      const ana = await buildUser(t.ctx);
      const before = await me(ana.key);
      t.clock.advance(3_600_000);
      expectError(await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { name: '' } }), 400, 'invalid_name');
      expect((await me(ana.key)).lastActivityDate).toBe(before.lastActivityDate);
    });
  });
});

describe('DELETE /api/users/{id}', () => {
  const h = useTestApp();

  it('answers 403 forbidden for another id, existing or not, and deletes nothing', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    await buildGroup(t.ctx, { members: [ana, ben] });
    expectError(await api.delete(`/users/${ben.user.id}`, { key: ana.key }), 403, 'forbidden');
    expectError(await api.delete(`/users/${randomUUID()}`, { key: ana.key }), 403, 'forbidden');
    expect((await api.get('/me', { key: ben.key })).status).toBe(200);
    expect((await api.get('/me', { key: ana.key })).status).toBe(200);
  });

  it('answers 401 without a key', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    expectError(await api.delete(`/users/${ana.user.id}`), 401, 'auth_required');
    expect(await reloadUser(t.ctx, ana.user.id)).toBeDefined();
  });

  describe('deleting oneself', () => {
    let ana: BuiltUser;
    let ben: BuiltUser;
    let cleo: BuiltUser;
    let groupId: string;
    let inviteKey: string;
    let deleteStatus: number;
    let deleteText: string;

    beforeAll(async () => {
      const { t, api } = h;
      ana = await buildUser(t.ctx, { name: 'Ana', login: 'ana-deleted@example.org' });
      ben = await buildUser(t.ctx, { name: 'Ben' });
      cleo = await buildUser(t.ctx, { name: 'Cleo' });
      const group = await buildGroup(t.ctx, { name: 'Family', members: [ben, cleo] });
      groupId = group.id;
      inviteKey = group.secret_key;
      // Ana joins (Ben and Cleo get user_joined_group from her) and renames the group.
      expect((await api.post(`/groups/invitation/${inviteKey}`, { key: ana.key, body: {} })).status).toBe(200);
      expect((await api.put(`/groups/${groupId}`, { key: ana.key, body: { name: 'Family 2' } })).status).toBe(200);
      // Ana also owns a notification (Ben renames), which must go with her account.
      expect((await api.put(`/groups/${groupId}`, { key: ben.key, body: { name: 'Family 3' } })).status).toBe(200);
      const res = await api.delete(`/users/${ana.user.id}`, { key: ana.key });
      deleteStatus = res.status;
      deleteText = res.text;
    });

    it('answers 204 with an empty body', () => {
      expect(deleteStatus).toBe(204);
      expect(deleteText).toBe('');
    });

    it('makes the old key answer 401 invalid_api_key', async () => {
      const { api } = h;
      expectError(await api.get('/me', { key: ana.key }), 401, 'invalid_api_key');
      expectError(await api.get('/me/notifications', { key: ana.key }), 401, 'invalid_api_key');
    });

    it('removes the account and its own notifications', async () => {
      const { t } = h;
      expect(await reloadUser(t.ctx, ana.user.id)).toBeUndefined();
      const owned = await t.ctx.db.kysely
        .selectFrom('notifications')
        .select('id')
        .where('user_id', '=', ana.user.id)
        .execute();
      expect(owned).toEqual([]);
    });

    it('keeps the notifications she caused for others, with fromUser null', async () => {
      const { api } = h;
      for (const member of [ben, cleo]) {
        const res = await api.get('/me/notifications', { key: member.key });
        expect(res.status).toBe(200);
        const joined = res.body.find((n: Json) => n.type === 'user_joined_group');
        expect(joined).toBeDefined();
        expect(joined.fromUser).toBeNull();
        expect(joined.miniature).toBeNull();
        expect(joined.fromGroup).toEqual({ id: groupId, entityType: 'group', name: 'Family 3' });
        const renames = res.body.filter((n: Json) => n.type === 'group_name_change');
        const byAna = renames.find((n: Json) => n.data.newGroupName === 'Family 2');
        expect(byAna).toBeDefined();
        expect(byAna.fromUser).toBeNull();
      }
    });

    it('removes her from the member list the others see', async () => {
      const { api } = h;
      const res = await api.get(`/groups/${groupId}`, { key: ben.key });
      expect(res.status).toBe(200);
      const ids = res.body.users.map((u: Json) => u.id);
      expect(ids).not.toContain(ana.user.id);
      expect(ids.sort()).toEqual([ben.user.id, cleo.user.id].sort());
    });

    it('makes her profile answer 404 to former co-members', async () => {
      const { api } = h;
      expectError(await api.get(`/users/${ana.user.id}`, { key: ben.key }), 404, 'not_found');
    });

    it('sends an account_deleted mail to the former address', async () => {
      const { t } = h;
      const mail = await t.mailer.waitFor((m) => m.kind === 'account_deleted');
      expect(mail.to).toBe('ana-deleted@example.org');
    });

    it('lets the e-mail address sign up again at once, as a new account', async () => {
      const { api } = h;
      const res = await api.post('/signup', {
        body: { login: 'Ana-Deleted@example.org', password: 'a fresh password', invite_key: inviteKey },
      });
      expect(res.status).toBe(200);
      expect(res.body.group).toBe(groupId);
      expect(typeof res.body.api_key).toBe('string');
      const me = await api.get('/me', { key: res.body.api_key });
      expect(me.status).toBe(200);
      expect(me.body.login).toBe('ana-deleted@example.org');
      expect(me.body.id).toMatch(UUID);
      expect(me.body.id).not.toBe(ana.user.id);
      expect(me.body.groups.map((g: Json) => g.id)).toEqual([groupId]);
    });
  });
});

describe('POST /api/users/{id}/reset-api-key', () => {
  const h = useTestApp();

  it('answers 403 forbidden for another id, existing or not, and rotates nothing', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    expectError(await api.post(`/users/${ben.user.id}/reset-api-key`, { key: ana.key }), 403, 'forbidden');
    expectError(await api.post(`/users/${randomUUID()}/reset-api-key`, { key: ana.key }), 403, 'forbidden');
    expect((await api.get('/me', { key: ben.key })).status).toBe(200);
    expect((await api.get('/me', { key: ana.key })).status).toBe(200);
  });

  it('answers 401 without a key', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    expectError(await api.post(`/users/${ana.user.id}/reset-api-key`), 401, 'auth_required');
    expect((await api.get('/me', { key: ana.key })).status).toBe(200);
  });

  it('answers a new 43-character key; the old one stops at once, the new one works, login returns it', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const res = await api.post(`/users/${ana.user.id}/reset-api-key`, { key: ana.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['apiKey']);
    const newKey: string = res.body.apiKey;
    expect(newKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newKey).not.toBe(ana.key);

    expectError(await api.get('/me', { key: ana.key }), 401, 'invalid_api_key');
    const me = await api.get('/me', { key: newKey });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(ana.user.id);

    const login = await api.post('/login', { body: { login: ana.user.login, password: ana.password } });
    expect(login.status).toBe(200);
    expect(login.body.api_key).toBe(newKey);
  });

  it('gives a different key on each reset, and only the latest works', async () => {
    const { t, api } = h;
    const ana = await buildUser(t.ctx);
    const first = await api.post(`/users/${ana.user.id}/reset-api-key`, { key: ana.key });
    expect(first.status).toBe(200);
    const second = await api.post(`/users/${ana.user.id}/reset-api-key`, { key: first.body.apiKey });
    expect(second.status).toBe(200);
    expect(second.body.apiKey).not.toBe(first.body.apiKey);
    expectError(await api.get('/me', { key: first.body.apiKey }), 401, 'invalid_api_key');
    expectError(
      await api.post(`/users/${ana.user.id}/reset-api-key`, { key: first.body.apiKey }),
      401,
      'invalid_api_key',
    );
    expect((await api.get('/me', { key: second.body.apiKey })).status).toBe(200);
  });
});
