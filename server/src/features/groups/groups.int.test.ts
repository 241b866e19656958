import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import { buildGroup, buildUser, reloadUser, type BuiltUser } from '../../../test/factories.js';
import { expectError, UUID_V4 } from '../../../test/expect.js';

const SECOND = 1000;
const HOUR = 60 * 60 * SECOND;
const DAY = 24 * HOUR;

/** The group object of §2.3 has exactly these keys (secretKey only when shown). */
function expectGroupShape(body: Record<string, unknown>, withSecretKey: boolean): void {
  const keys = ['createdAt', 'entityType', 'id', 'lastActivityDate', 'name', 'users'];
  if (withSecretKey) keys.push('secretKey');
  expect(Object.keys(body).sort()).toEqual(keys.sort());
  expect(body.entityType).toBe('group');
  expect(body.id).toMatch(UUID_V4);
  expect(Number.isInteger(body.createdAt)).toBe(true);
  expect(Number.isInteger(body.lastActivityDate)).toBe(true);
  if (withSecretKey) expect(body.secretKey).toMatch(UUID_V4);
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

describe('groups (docs/api §5)', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  /** Moves the test clock so joins, renames and notifications get distinct times. */
  const tick = (ms = SECOND): void => t.clock.advance(ms);

  const user = (name?: string): Promise<BuiltUser> => buildUser(t.ctx, name === undefined ? {} : { name });

  const userRef = (u: BuiltUser) => ({ id: u.user.id, entityType: 'user', name: u.user.name, avatar: null });

  const me = async (u: BuiltUser) => {
    const res = await api.get('/me', { key: u.key });
    expect(res.status).toBe(200);
    return res.body;
  };

  const notifications = async (u: BuiltUser) => {
    const res = await api.get('/me/notifications', { key: u.key });
    expect(res.status).toBe(200);
    return res.body as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  const countRows = async (table: 'notifications' | 'groups' | 'memberships'): Promise<number> => {
    const row = await t.ctx.db.kysely
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  const createGroup = async (u: BuiltUser, name = 'Family') => {
    const res = await api.post('/groups', { key: u.key, body: { name } });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };

  const join = (u: BuiltUser, key: string) => api.post(`/groups/invitation/${key}`, { key: u.key, body: {} });

  describe('POST /api/groups', () => {
    it('answers 201 with the group object, the creator as its only member', async () => {
      const ana = await user('Ana');
      const res = await api.post('/groups', { key: ana.key, body: { name: 'Family' } });
      expect(res.status).toBe(201);
      expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
      expectGroupShape(res.body, true);
      expect(res.body.name).toBe('Family');
      expect(res.body.createdAt).toBe(seconds(t.clock.now()));
      expect(res.body.lastActivityDate).toBe(seconds(t.clock.now()));
      expect(res.body.secretKey).not.toBe(res.body.id);
      expect(res.body.users).toEqual([userRef(ana)]);

      const stored = await t.ctx.db.kysely
        .selectFrom('groups')
        .selectAll()
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      expect(stored.secret_key).toBe(res.body.secretKey);
      expect((await me(ana)).groups).toEqual([{ id: res.body.id, entityType: 'group', name: 'Family' }]);
    });

    it('makes the new group the default group of a creator who had none, and only then', async () => {
      const ana = await user();
      expect((await me(ana)).data.default_group).toBeUndefined();
      const first = await createGroup(ana, 'First');
      expect((await me(ana)).data.default_group).toBe(first.id);
      tick();
      const second = await createGroup(ana, 'Second');
      const after = await me(ana);
      expect(after.data.default_group).toBe(first.id);
      expect(after.groups.map((g: { id: string }) => g.id)).toEqual([first.id, second.id]);
    });

    it('keeps a default group that was already set', async () => {
      const ana = await user();
      const existing = await buildGroup(t.ctx, { members: [ana] });
      expect((await me(ana)).data.default_group).toBe(existing.id);
      tick();
      const created = await createGroup(ana, 'Another');
      expect(created.id).not.toBe(existing.id);
      expect((await me(ana)).data.default_group).toBe(existing.id);
    });

    it('trims the name', async () => {
      const ana = await user();
      const created = await createGroup(ana, '  \t Cousins  \n');
      expect(created.name).toBe('Cousins');
      const got = await api.get(`/groups/${created.id}`, { key: ana.key });
      expect(got.body.name).toBe('Cousins');
    });

    it('refuses a name with a NUL character and creates nothing', async () => {
      const ana = await user();
      const before = await countRows('groups');
      const res = await api.post('/groups', { key: ana.key, body: { name: 'Fam\u0000ily' } });
      expect(res.status).toBe(400);
      // NUL is a control character (invalid_name); the server refuses NUL in any JSON body (invalid_json).
      expect(['invalid_name', 'invalid_json']).toContain(res.body.code);
      expect(await countRows('groups')).toBe(before);
    });

    it('accepts names of exactly 128 UTF-16 code units', async () => {
      const ana = await user();
      expect((await createGroup(ana, 'a'.repeat(128))).name).toBe('a'.repeat(128));
      // 64 emoji are 128 code units (JavaScript length), the count the contract uses.
      expect((await createGroup(ana, '😀'.repeat(64))).name).toBe('😀'.repeat(64));
    });

    it.each([
      ['no body at all', undefined],
      ['an empty object', {}],
      ['a null name', { name: null }],
      ['other fields only', { title: 'Family' }],
    ])('answers 400 missing_field for %s', async (_label, body) => {
      const ana = await user();
      const before = await countRows('groups');
      const res = await api.post('/groups', { key: ana.key, ...(body === undefined ? {} : { body }) });
      expectError(res, 400, 'missing_field', 'name');
      expect(await countRows('groups')).toBe(before);
    });

    it.each([
      ['empty', ''],
      ['blank', '   '],
      ['129 characters', 'a'.repeat(129)],
      ['129 UTF-16 code units', `a${'😀'.repeat(64)}`],
      ['a <', 'Tom<b'],
      ['a >', 'Tom>b'],
      ['a script tag', '<script>alert(1)</script>'],
      ['a bell', 'Fam\u0007ily'],
      ['an inner newline', 'Fam\nily'],
      ['an inner tab', 'Fam\tily'],
      ['a DEL', 'Fam\u007fily'],
      ['a C1 control', 'Fam\u0085ily'],
    ])('answers 400 invalid_name for a name that is %s, and creates nothing', async (_label, name) => {
      const ana = await user();
      const before = await countRows('groups');
      const res = await api.post('/groups', { key: ana.key, body: { name } });
      expectError(res, 400, 'invalid_name', 'name');
      expect(await countRows('groups')).toBe(before);
      expect((await me(ana)).groups).toEqual([]);
    });

    it('ignores createdAt, id, secretKey, users and other server-owned fields sent by the client', async () => {
      const ana = await user();
      const ben = await user();
      const forcedId = '11111111-2222-4333-8444-555555555555';
      const res = await api.post('/groups', {
        key: ana.key,
        body: {
          name: 'Family',
          createdAt: 1000,
          lastActivityDate: 2000,
          id: forcedId,
          entityType: 'message',
          secretKey: 'chosen-by-client',
          users: [{ id: ben.user.id }],
        },
      });
      expect(res.status).toBe(201);
      expect(res.body.createdAt).toBe(seconds(t.clock.now()));
      expect(res.body.lastActivityDate).toBe(seconds(t.clock.now()));
      expect(res.body.id).not.toBe(forcedId);
      expect(res.body.entityType).toBe('group');
      expect(res.body.secretKey).not.toBe('chosen-by-client');
      expect(res.body.secretKey).toMatch(UUID_V4);
      expect(res.body.users).toEqual([userRef(ana)]);
      expect((await me(ben)).groups).toEqual([]);
    });

    it('sends no notification', async () => {
      const ana = await user();
      const before = await countRows('notifications');
      await createGroup(ana);
      expect(await countRows('notifications')).toBe(before);
      expect(await notifications(ana)).toEqual([]);
    });

    it("answers the 0.5.6 client's follow-up invitation call by the creator as a no-op", async () => {
      const ana = await user();
      const created = await createGroup(ana, 'Family');
      const notificationsBefore = await countRows('notifications');
      const membershipsBefore = await countRows('memberships');
      tick();
      const res = await join(ana, created.secretKey);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: created.id, entityType: 'group', name: 'Family' });
      expect(await countRows('notifications')).toBe(notificationsBefore);
      expect(await countRows('memberships')).toBe(membershipsBefore);
      const got = await api.get(`/groups/${created.id}`, { key: ana.key });
      expect(got.body.users).toEqual([userRef(ana)]);
      expect((await me(ana)).data.default_group).toBe(created.id);
    });

    it('needs a valid key', async () => {
      expectError(await api.post('/groups', { body: { name: 'x' } }), 401, 'auth_required');
      expectError(await api.post('/groups', { key: 'nope', body: { name: 'x' } }), 401, 'invalid_api_key');
    });
  });

  describe('GET /api/groups/{id}', () => {
    it('shows a member the group with its users in join order, with name and avatar', async () => {
      const [ana, ben, cy] = [await user('Ana'), await user('Ben'), await user('Cy')];
      const group = await buildGroup(t.ctx, { name: 'Family', members: [cy, ana, ben] });
      tick(10 * SECOND);
      const dee = await user('Dee');
      expect((await join(dee, group.secret_key)).status).toBe(200);

      for (const member of [ana, ben, cy, dee]) {
        const res = await api.get(`/groups/${group.id}`, { key: member.key });
        expect(res.status).toBe(200);
        expect(res.headers['cache-control']).toBe('no-store');
        expectGroupShape(res.body, true);
        expect(res.body).toMatchObject({
          id: group.id,
          name: 'Family',
          secretKey: group.secret_key,
          createdAt: seconds(group.created_at),
        });
        expect(res.body.users).toEqual([userRef(cy), userRef(ana), userRef(ben), userRef(dee)]);
      }
    });

    it('lowercases an upper-case id before the lookup', async () => {
      const ana = await user();
      const group = await buildGroup(t.ctx, { members: [ana] });
      const res = await api.get(`/groups/${group.id.toUpperCase()}`, { key: ana.key });
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(group.id);
    });

    it('answers 404 not_found to a non-member, exactly as for an unknown id', async () => {
      const [ana, eve] = [await user(), await user()];
      const group = await buildGroup(t.ctx, { members: [ana] });
      const hidden = await api.get(`/groups/${group.id}`, { key: eve.key });
      expectError(hidden, 404, 'not_found');
      const unknown = await api.get('/groups/6f1d2c3b-4a59-4e8d-9c7b-6a5f4e3d2c1b', { key: eve.key });
      expectError(unknown, 404, 'not_found');
      expect(hidden.body).toEqual(unknown.body);
      expect(hidden.text).not.toContain(group.name);
      expect(hidden.text).not.toContain(group.secret_key);
    });

    it.each(['abc', '123', 'not-a-uuid-at-all-000000000000000000', '6f1d2c3b4a594e8d9c7b6a5f4e3d2c1b'])(
      'answers 404 not_found for the non-UUID id %s',
      async (id) => {
        const ana = await user();
        expectError(await api.get(`/groups/${id}`, { key: ana.key }), 404, 'not_found');
      },
    );

    it('answers 401 without a key and with a bad key', async () => {
      const ana = await user();
      const group = await buildGroup(t.ctx, { members: [ana] });
      expectError(await api.get(`/groups/${group.id}`), 401, 'auth_required');
      expectError(await api.get(`/groups/${group.id}`, { key: 'x'.repeat(43) }), 401, 'invalid_api_key');
    });
  });

  describe('PUT /api/groups/{id}', () => {
    it('reads only the name: users and secretKey sent back change nothing', async () => {
      const [ana, ben] = [await user('Ana'), await user('Ben')];
      const group = await buildGroup(t.ctx, { name: 'Old', members: [ana, ben] });
      const before = (await api.get(`/groups/${group.id}`, { key: ana.key })).body;
      const res = await api.put(`/groups/${group.id}`, {
        key: ana.key,
        body: { ...before, name: 'New', users: [], secretKey: 'x', id: '11111111-2222-4333-8444-555555555555' },
      });
      expect(res.status).toBe(200);
      expectGroupShape(res.body, true);
      expect(res.body.id).toBe(group.id);
      expect(res.body.name).toBe('New');
      expect(res.body.users).toEqual([userRef(ana), userRef(ben)]);
      expect(res.body.secretKey).toBe(group.secret_key);

      const after = (await api.get(`/groups/${group.id}`, { key: ben.key })).body;
      expect(after.users).toEqual([userRef(ana), userRef(ben)]);
      expect(after.secretKey).toBe(group.secret_key);
      // The old key still works; 'x' is no key.
      const cy = await user();
      expectError(await join(cy, 'x'), 400, 'invalid_invite_key');
      expect((await join(cy, group.secret_key)).status).toBe(200);
    });

    it('renames, and the new name shows at once in GET and in the members’ /api/me', async () => {
      const [ana, ben] = [await user(), await user()];
      const group = await buildGroup(t.ctx, { name: 'Old', members: [ana, ben] });
      const res = await api.put(`/groups/${group.id}`, { key: ben.key, body: { name: '  Renamed  ' } });
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('Renamed');
      expect((await api.get(`/groups/${group.id}`, { key: ana.key })).body.name).toBe('Renamed');
      expect((await me(ana)).groups).toEqual([{ id: group.id, entityType: 'group', name: 'Renamed' }]);
    });

    it.each([
      ['', ''],
      ['blank', '  '],
      ['129 characters', 'b'.repeat(129)],
      ['<', 'a<b'],
      ['>', 'a>b'],
      ['a control character', 'a\u0001b'],
    ])('answers 400 invalid_name for %s and keeps the old name', async (_label, name) => {
      const ana = await user();
      const group = await buildGroup(t.ctx, { name: 'Kept', members: [ana] });
      expectError(await api.put(`/groups/${group.id}`, { key: ana.key, body: { name } }), 400, 'invalid_name', 'name');
      expect((await api.get(`/groups/${group.id}`, { key: ana.key })).body.name).toBe('Kept');
    });

    it('answers 404 to a non-member and for unknown or malformed ids, and renames nothing', async () => {
      const [ana, eve] = [await user(), await user()];
      const group = await buildGroup(t.ctx, { name: 'Private', members: [ana] });
      expectError(await api.put(`/groups/${group.id}`, { key: eve.key, body: { name: 'Hacked' } }), 404, 'not_found');
      expectError(
        await api.put('/groups/6f1d2c3b-4a59-4e8d-9c7b-6a5f4e3d2c1b', { key: eve.key, body: { name: 'x' } }),
        404,
        'not_found',
      );
      expectError(await api.put('/groups/nope', { key: eve.key, body: { name: 'x' } }), 404, 'not_found');
      expectError(await api.put(`/groups/${group.id}`, { body: { name: 'x' } }), 401, 'auth_required');
      expect((await api.get(`/groups/${group.id}`, { key: ana.key })).body.name).toBe('Private');
    });

    it('sends group_name_change to every other member, with the old and new names', async () => {
      const [ana, ben, cy] = [await user('Ana'), await user('Ben'), await user('Cy')];
      const group = await buildGroup(t.ctx, { name: 'Old', members: [ana, ben, cy] });
      tick();
      expect((await api.put(`/groups/${group.id}`, { key: ana.key, body: { name: 'New' } })).status).toBe(200);

      expect(await notifications(ana)).toEqual([]);
      for (const other of [ben, cy]) {
        const list = await notifications(other);
        expect(list).toHaveLength(1);
        expect(list[0]).toMatchObject({
          entityType: 'notification',
          type: 'group_name_change',
          read: false,
          target: group.id,
          data: { previousGroupName: 'Old', newGroupName: 'New' },
          fromUser: { id: ana.user.id, entityType: 'user', name: 'Ana' },
          fromGroup: { id: group.id, entityType: 'group' },
          fromMessage: null,
          createdAt: seconds(t.clock.now()),
        });
        expect(Object.keys(list[0]?.data ?? {}).sort()).toEqual(['newGroupName', 'previousGroupName']);
      }
    });

    it('sends no notification when the name does not actually change', async () => {
      const [ana, ben] = [await user(), await user()];
      const group = await buildGroup(t.ctx, { name: 'Same', members: [ana, ben] });
      const before = await countRows('notifications');
      expect((await api.put(`/groups/${group.id}`, { key: ana.key, body: { name: 'Same' } })).status).toBe(200);
      expect((await api.put(`/groups/${group.id}`, { key: ana.key, body: { name: '  Same ' } })).status).toBe(200);
      expect(await countRows('notifications')).toBe(before);
      expect(await notifications(ben)).toEqual([]);
    });

    it('changes neither activity date', async () => {
      const [ana, ben] = [await user(), await user()];
      const group = await buildGroup(t.ctx, { name: 'Old', members: [ana, ben] });
      const before = (await api.get(`/groups/${group.id}`, { key: ana.key })).body;
      tick(3 * HOUR);
      const res = await api.put(`/groups/${group.id}`, { key: ana.key, body: { name: 'New' } });
      expect(res.status).toBe(200);
      expect(res.body.createdAt).toBe(before.createdAt);
      expect(res.body.lastActivityDate).toBe(before.lastActivityDate);
      const after = (await api.get(`/groups/${group.id}`, { key: ben.key })).body;
      expect(after.name).toBe('New');
      expect(after.createdAt).toBe(before.createdAt);
      expect(after.lastActivityDate).toBe(before.lastActivityDate);
    });
  });

  describe('POST /api/groups/{id}/leave', () => {
    it('answers {id, entityType, name} and removes the leaver from the group', async () => {
      const [ana, ben, cy] = [await user('Ana'), await user('Ben'), await user('Cy')];
      const group = await buildGroup(t.ctx, { name: 'Family', members: [ana, ben, cy] });
      tick();
      const res = await api.post(`/groups/${group.id}/leave`, { key: ben.key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: group.id, entityType: 'group', name: 'Family' });

      expectError(await api.get(`/groups/${group.id}`, { key: ben.key }), 404, 'not_found');
      const remaining = await api.get(`/groups/${group.id}`, { key: ana.key });
      expect(remaining.body.users).toEqual([userRef(ana), userRef(cy)]);
      expect((await me(ben)).groups).toEqual([]);
      // Leaving twice: no longer a member.
      expectError(await api.post(`/groups/${group.id}/leave`, { key: ben.key }), 404, 'not_found');
    });

    it('sends user_left_group to every remaining member, and nothing to the leaver', async () => {
      const [ana, ben, cy] = [await user('Ana'), await user('Ben'), await user('Cy')];
      const group = await buildGroup(t.ctx, { name: 'Family', members: [ana, ben, cy] });
      tick();
      expect((await api.post(`/groups/${group.id}/leave`, { key: ana.key })).status).toBe(200);
      for (const other of [ben, cy]) {
        const list = await notifications(other);
        expect(list).toHaveLength(1);
        expect(list[0]).toMatchObject({
          type: 'user_left_group',
          read: false,
          target: group.id,
          data: {},
          fromUser: { id: ana.user.id, entityType: 'user', name: 'Ana' },
          fromGroup: { id: group.id, entityType: 'group', name: 'Family' },
          fromMessage: null,
        });
      }
      expect(await notifications(ana)).toEqual([]);
    });

    it("deletes the leaver's notifications from that group and keeps the others", async () => {
      const [ana, ben, cy] = [await user(), await user(), await user()];
      const left = await buildGroup(t.ctx, { name: 'Left', members: [ana, ben] });
      tick();
      const kept = await buildGroup(t.ctx, { name: 'Kept', members: [ana, cy] });
      tick();
      await api.put(`/groups/${left.id}`, { key: ben.key, body: { name: 'Left 2' } });
      await api.put(`/groups/${kept.id}`, { key: cy.key, body: { name: 'Kept 2' } });
      tick();
      const dee = await user();
      expect((await join(dee, left.secret_key)).status).toBe(200);
      expect((await notifications(ana)).map((n) => n.fromGroup.id).sort()).toEqual([kept.id, left.id, left.id].sort());

      tick();
      expect((await api.post(`/groups/${left.id}/leave`, { key: ana.key })).status).toBe(200);
      const after = await notifications(ana);
      expect(after).toHaveLength(1);
      expect(after[0]).toMatchObject({ type: 'group_name_change', fromGroup: { id: kept.id } });
      const leftovers = await t.ctx.db.kysely
        .selectFrom('notifications')
        .select('id')
        .where('user_id', '=', ana.user.id)
        .where('from_group_id', '=', left.id)
        .execute();
      expect(leftovers).toEqual([]);
      // Other members keep theirs: Ben still has Dee's join, plus Ana's leave.
      expect((await notifications(ben)).map((n) => n.type).sort()).toEqual(['user_joined_group', 'user_left_group']);
    });

    it('moves the default group to the oldest remaining group, then to none', async () => {
      const ana = await user();
      const g1 = await buildGroup(t.ctx, { name: 'G1', members: [ana] });
      tick();
      const g2 = await buildGroup(t.ctx, { name: 'G2', members: [ana] });
      tick();
      const g3 = await buildGroup(t.ctx, { name: 'G3', members: [ana] });
      tick();
      const g4 = await buildGroup(t.ctx, { name: 'G4', members: [ana] });
      const set = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { default_group: g2.id } } });
      expect(set.status).toBe(200);
      expect(set.body.data.default_group).toBe(g2.id);

      const leave = async (groupId: string) => {
        tick();
        expect((await api.post(`/groups/${groupId}/leave`, { key: ana.key })).status).toBe(200);
        return me(ana);
      };
      // Not the default: unchanged.
      expect((await leave(g4.id)).data.default_group).toBe(g2.id);
      // The default: the oldest remaining one (G1, before G3).
      expect((await leave(g2.id)).data.default_group).toBe(g1.id);
      expect((await leave(g1.id)).data.default_group).toBe(g3.id);
      const last = await leave(g3.id);
      expect(last.groups).toEqual([]);
      expect('default_group' in last.data).toBe(false);
      expect((await reloadUser(t.ctx, ana.user.id))?.default_group_id).toBeNull();
    });

    it('answers 404 not_found to a non-member and for unknown or malformed ids', async () => {
      const [ana, eve] = [await user(), await user()];
      const group = await buildGroup(t.ctx, { members: [ana] });
      expectError(await api.post(`/groups/${group.id}/leave`, { key: eve.key }), 404, 'not_found');
      expectError(
        await api.post('/groups/6f1d2c3b-4a59-4e8d-9c7b-6a5f4e3d2c1b/leave', { key: eve.key }),
        404,
        'not_found',
      );
      expectError(await api.post('/groups/zzz/leave', { key: eve.key }), 404, 'not_found');
      expectError(await api.post(`/groups/${group.id}/leave`), 401, 'auth_required');
      expect((await api.get(`/groups/${group.id}`, { key: ana.key })).body.users).toEqual([userRef(ana)]);
    });

    it('keeps a group left by its last member joinable by its invite key within 30 days', async () => {
      const ana = await user('Ana');
      const group = await buildGroup(t.ctx, { name: 'Empty soon', members: [ana] });
      tick();
      const res = await api.post(`/groups/${group.id}/leave`, { key: ana.key });
      expect(res.body).toEqual({ id: group.id, entityType: 'group', name: 'Empty soon' });
      expectError(await api.get(`/groups/${group.id}`, { key: ana.key }), 404, 'not_found');
      const emptied = await t.ctx.db.kysely
        .selectFrom('groups')
        .select('emptied_at')
        .where('id', '=', group.id)
        .executeTakeFirst();
      expect(emptied?.emptied_at).not.toBeNull();

      t.clock.advance(29 * DAY);
      const ben = await user('Ben');
      const joined = await join(ben, group.secret_key);
      expect(joined.status).toBe(200);
      expect(joined.body).toEqual({ id: group.id, entityType: 'group', name: 'Empty soon' });
      const got = await api.get(`/groups/${group.id}`, { key: ben.key });
      expect(got.status).toBe(200);
      expect(got.body.users).toEqual([userRef(ben)]);
      expect((await me(ben)).data.default_group).toBe(group.id);
      const kept = await t.ctx.db.kysely
        .selectFrom('groups')
        .select('emptied_at')
        .where('id', '=', group.id)
        .executeTakeFirst();
      expect(kept?.emptied_at).toBeNull();
      // Ana is no longer a member and is told nothing.
      expect(await notifications(ana)).toEqual([]);
    });
  });

  describe('POST /api/groups/{id}/reset-invite-key', () => {
    it('answers a new UUID v4 key; the old key stops working at once for invitations and signup', async () => {
      const [ana, ben] = [await user(), await user()];
      const group = await buildGroup(t.ctx, { name: 'Family', members: [ana, ben] });
      const notificationsBefore = await countRows('notifications');
      const res = await api.post(`/groups/${group.id}/reset-invite-key`, { key: ben.key });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['inviteKey']);
      expect(res.body.inviteKey).toMatch(UUID_V4);
      expect(res.body.inviteKey).not.toBe(group.secret_key);
      expect(await countRows('notifications')).toBe(notificationsBefore);

      const got = await api.get(`/groups/${group.id}`, { key: ana.key });
      expect(got.body.secretKey).toBe(res.body.inviteKey);

      const cy = await user();
      const oldInvite = await join(cy, group.secret_key);
      expectError(oldInvite, 400, 'invalid_invite_key');
      expect(oldInvite.body.message).toBe('Invalid invite key');
      const oldSignup = await api.post('/signup', {
        body: { login: 'old-key@example.org', password: 'long enough password', invite_key: group.secret_key },
        ip: '10.1.0.1',
      });
      expectError(oldSignup, 400, 'invalid_invite_key');
      expect(oldSignup.body.message).toBe('Invalid invite key');
      expect((await me(cy)).groups).toEqual([]);

      // The new key works for both.
      tick();
      expect((await join(cy, res.body.inviteKey)).status).toBe(200);
      tick();
      const signup = await api.post('/signup', {
        body: { login: 'new-key@example.org', password: 'long enough password', invite_key: res.body.inviteKey },
        ip: '10.1.0.2',
      });
      expect(signup.status).toBe(200);
      expect(signup.body.group).toBe(group.id);
      expect((await api.get(`/groups/${group.id}`, { key: ana.key })).body.users).toHaveLength(4);
    });

    it('answers 404 to a non-member and for unknown or malformed ids, and keeps the key', async () => {
      const [ana, eve] = [await user(), await user()];
      const group = await buildGroup(t.ctx, { members: [ana] });
      expectError(await api.post(`/groups/${group.id}/reset-invite-key`, { key: eve.key }), 404, 'not_found');
      expectError(
        await api.post('/groups/6f1d2c3b-4a59-4e8d-9c7b-6a5f4e3d2c1b/reset-invite-key', { key: eve.key }),
        404,
        'not_found',
      );
      expectError(await api.post('/groups/1234/reset-invite-key', { key: eve.key }), 404, 'not_found');
      expectError(await api.post(`/groups/${group.id}/reset-invite-key`), 401, 'auth_required');
      expect((await api.get(`/groups/${group.id}`, { key: ana.key })).body.secretKey).toBe(group.secret_key);
    });
  });

  describe('POST /api/groups/invitation/{inviteKey}', () => {
    it('joins: the group goes to the end of /api/me groups and the other members are told', async () => {
      const [ana, cy] = [await user('Ana'), await user('Cy')];
      const group = await buildGroup(t.ctx, { name: 'Family', members: [ana, cy] });
      tick();
      const ben = await user('Ben');
      const own = await buildGroup(t.ctx, { name: 'Own', members: [ben] });
      tick();
      const res = await join(ben, group.secret_key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: group.id, entityType: 'group', name: 'Family' });

      const mine = await me(ben);
      expect(mine.groups).toEqual([
        { id: own.id, entityType: 'group', name: 'Own' },
        { id: group.id, entityType: 'group', name: 'Family' },
      ]);
      // Ben had a default group already: unchanged.
      expect(mine.data.default_group).toBe(own.id);
      expect((await api.get(`/groups/${group.id}`, { key: ben.key })).body.users).toEqual([
        userRef(ana),
        userRef(cy),
        userRef(ben),
      ]);

      for (const other of [ana, cy]) {
        const list = await notifications(other);
        expect(list).toHaveLength(1);
        expect(list[0]).toMatchObject({
          type: 'user_joined_group',
          target: group.id,
          data: {},
          read: false,
          fromUser: { id: ben.user.id, name: 'Ben' },
          fromGroup: { id: group.id, name: 'Family' },
          fromMessage: null,
        });
      }
      expect(await notifications(ben)).toEqual([]);
    });

    it('makes the group the default of a joiner who had none', async () => {
      const ana = await user();
      const group = await buildGroup(t.ctx, { members: [ana] });
      const ben = await user();
      expect((await me(ben)).data.default_group).toBeUndefined();
      expect((await join(ben, group.secret_key)).status).toBe(200);
      expect((await me(ben)).data.default_group).toBe(group.id);
    });

    it('is a no-op for a member: same answer, no notification, membership unchanged', async () => {
      const [ana, ben] = [await user(), await user()];
      const group = await buildGroup(t.ctx, { name: 'Family', members: [ana, ben] });
      const membersBefore = (await api.get(`/groups/${group.id}`, { key: ana.key })).body.users;
      const notificationsBefore = await countRows('notifications');
      const membershipsBefore = await countRows('memberships');
      tick();
      for (const member of [ben, ana]) {
        const res = await join(member, group.secret_key);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ id: group.id, entityType: 'group', name: 'Family' });
      }
      expect(await countRows('notifications')).toBe(notificationsBefore);
      expect(await countRows('memberships')).toBe(membershipsBefore);
      expect((await api.get(`/groups/${group.id}`, { key: ana.key })).body.users).toEqual(membersBefore);
    });

    it.each([
      ['a well-formed UUID', '6f1d2c3b-4a59-4e8d-9c7b-6a5f4e3d2c1b'],
      ['a short word', 'nonsense'],
      ['200 characters long', 'x'.repeat(200)],
    ])('answers 400 invalid_invite_key "Invalid invite key" for an unknown key that is %s', async (_label, key) => {
      const ben = await user();
      const res = await join(ben, key);
      expectError(res, 400, 'invalid_invite_key');
      expect(res.body.message).toBe('Invalid invite key');
      expect(res.body.error).toBe('Invalid invite key');
      expect((await me(ben)).groups).toEqual([]);
    });

    it('needs a valid key', async () => {
      const ana = await user();
      const group = await buildGroup(t.ctx, { members: [ana] });
      expectError(await api.post(`/groups/invitation/${group.secret_key}`, { body: {} }), 401, 'auth_required');
      expect((await api.get(`/groups/${group.id}`, { key: ana.key })).body.users).toHaveLength(1);
    });

    it('answers 429 with Retry-After after 20 unknown keys by the same user within an hour', async () => {
      const [prober, other, ana] = [await user(), await user(), await user()];
      const group = await buildGroup(t.ctx, { members: [ana] });
      // Joins with a valid key are not counted: were they, the 11th unknown key would already be refused.
      for (let i = 0; i < 10; i += 1) expect((await join(prober, group.secret_key)).status).toBe(200);
      for (let i = 0; i < 20; i += 1) {
        expectError(await join(prober, `unknown-key-${i}`), 400, 'invalid_invite_key');
      }
      const blocked = await join(prober, 'unknown-key-21');
      expectError(blocked, 429, 'too_many_requests');
      const retryAfter = Number(blocked.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(3600);

      // Counted per user: someone else still gets the plain answer.
      expectError(await join(other, 'unknown-key-21'), 400, 'invalid_invite_key');

      // The window is one hour.
      t.clock.advance(HOUR + SECOND);
      expectError(await join(prober, 'unknown-key-22'), 400, 'invalid_invite_key');
    });
  });

  describe('joining through signup (done-when flow)', () => {
    it('lets B sign up with the invite key of the group A created; both see each other', async () => {
      const ana = await user('Ana');
      const created = await createGroup(ana, 'Family');
      tick();
      const signup = await api.post('/signup', {
        body: { login: 'Ben.Done@Example.org', password: 'a long password', invite_key: created.secretKey },
        ip: '10.2.0.1',
      });
      expect(signup.status, signup.text).toBe(200);
      expect(signup.body.group).toBe(created.id);
      expect(typeof signup.body.api_key).toBe('string');
      const benKey: string = signup.body.api_key;

      const benMe = (await api.get('/me', { key: benKey })).body;
      expect(benMe.name).toBe('ben.done');
      expect(benMe.groups).toEqual([{ id: created.id, entityType: 'group', name: 'Family' }]);
      expect(benMe.data.default_group).toBe(created.id);

      const expected = [userRef(ana), { id: benMe.id, entityType: 'user', name: 'ben.done', avatar: null }];
      const seenByAna = await api.get(`/groups/${created.id}`, { key: ana.key });
      const seenByBen = await api.get(`/groups/${created.id}`, { key: benKey });
      expect(seenByAna.status).toBe(200);
      expect(seenByBen.status).toBe(200);
      expect(seenByAna.body.users).toEqual(expected);
      expect(seenByBen.body.users).toEqual(expected);

      const anaNotes = await notifications(ana);
      expect(anaNotes).toHaveLength(1);
      expect(anaNotes[0]).toMatchObject({ type: 'user_joined_group', fromUser: { id: benMe.id } });
    });
  });
});

describe('groups with SHOW_INVITATION_LINKS=false', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await createTestApp({ SHOW_INVITATION_LINKS: 'false' });
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  it('still gives secretKey in the answer to creation', async () => {
    const ana = await buildUser(t.ctx);
    const res = await api.post('/groups', { key: ana.key, body: { name: 'Family' } });
    expect(res.status).toBe(201);
    expectGroupShape(res.body, true);
    // …and the client's follow-up call with it works.
    const follow = await api.post(`/groups/invitation/${res.body.secretKey}`, { key: ana.key, body: {} });
    expect(follow.status).toBe(200);
    expect(follow.body).toEqual({ id: res.body.id, entityType: 'group', name: 'Family' });
  });

  it('leaves secretKey out of GET and PUT answers', async () => {
    const ana = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [ana] });
    const got = await api.get(`/groups/${group.id}`, { key: ana.key });
    expect(got.status).toBe(200);
    expectGroupShape(got.body, false);
    expect(got.text).not.toContain(group.secret_key);
    const put = await api.put(`/groups/${group.id}`, { key: ana.key, body: { name: 'Renamed' } });
    expect(put.status).toBe(200);
    expectGroupShape(put.body, false);
    expect(put.text).not.toContain(group.secret_key);
  });

  it('answers 403 feature_disabled to a member resetting the key, and 404 to a non-member', async () => {
    const [ana, eve] = [await buildUser(t.ctx), await buildUser(t.ctx)];
    const group = await buildGroup(t.ctx, { members: [ana] });
    expectError(await api.post(`/groups/${group.id}/reset-invite-key`, { key: ana.key }), 403, 'feature_disabled');
    expectError(await api.post(`/groups/${group.id}/reset-invite-key`, { key: eve.key }), 404, 'not_found');
    const stored = await t.ctx.db.kysely
      .selectFrom('groups')
      .select('secret_key')
      .where('id', '=', group.id)
      .executeTakeFirstOrThrow();
    expect(stored.secret_key).toBe(group.secret_key);
  });
});
