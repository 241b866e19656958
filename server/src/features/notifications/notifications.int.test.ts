import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../../../test/client.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import type { GroupRow } from '../../db/rows.js';
import { toSeconds } from '../../lib/clock.js';
import { expectError, UUID_V4 as UUID } from '../../../test/expect.js';
import { useTestApp } from '../../../test/harness.js';

/** Parsed JSON of an answer (the client types it loosely on purpose). */
type Json = ApiResponse['body'];

/** The caller's notifications, newest first (asserts the call worked). */
async function listOf(api: ApiClient, key: string, limit?: number | string): Promise<Json[]> {
  const res = await api.get(limit === undefined ? '/me/notifications' : `/me/notifications/${limit}`, { key });
  expect(res.status).toBe(200);
  expect(Array.isArray(res.body)).toBe(true);
  return res.body;
}

async function rename(api: ApiClient, key: string, groupId: string, name: string) {
  const res = await api.put(`/groups/${groupId}`, { key, body: { name } });
  expect(res.status).toBe(200);
  return res;
}

describe('GET /api/me/notifications', () => {
  const h = useTestApp();
  let ana: BuiltUser;
  let ben: BuiltUser;
  let cleo: BuiltUser;
  let group: GroupRow;
  let joinedAt: number;
  let renamedAt: number;
  let leftAt: number;

  beforeAll(async () => {
    const { t, api } = h;
    ana = await buildUser(t.ctx, { name: 'Ana' });
    ben = await buildUser(t.ctx, { name: 'Ben' });
    cleo = await buildUser(t.ctx, { name: 'Cleo' });
    group = await buildGroup(t.ctx, { name: 'Family', members: [ana, ben] });
    t.clock.advance(10_000);
    joinedAt = t.clock.now();
    expect((await api.post(`/groups/invitation/${group.secret_key}`, { key: cleo.key, body: {} })).status).toBe(200);
    t.clock.advance(10_000);
    renamedAt = t.clock.now();
    await rename(api, ben.key, group.id, 'Family and friends');
    t.clock.advance(10_000);
    leftAt = t.clock.now();
    expect((await api.post(`/groups/${group.id}/leave`, { key: cleo.key })).status).toBe(200);
  });

  it('lists the caller’s notifications newest first', async () => {
    const { api } = h;
    const list = await listOf(api, ana.key);
    expect(list.map((n) => n.type)).toEqual(['user_left_group', 'group_name_change', 'user_joined_group']);
    expect(list.map((n) => n.createdAt)).toEqual([toSeconds(leftAt), toSeconds(renamedAt), toSeconds(joinedAt)]);
  });

  it('gives each item the complete §2.7 shape', async () => {
    const { api } = h;
    const list = await listOf(api, ana.key);
    const joined = list.find((n) => n.type === 'user_joined_group');
    expect(joined).toEqual({
      id: expect.stringMatching(UUID),
      entityType: 'notification',
      type: 'user_joined_group',
      createdAt: toSeconds(joinedAt),
      read: false,
      target: group.id,
      data: {},
      fromUser: { id: cleo.user.id, entityType: 'user', name: 'Cleo', avatar: null },
      fromGroup: { id: group.id, entityType: 'group', name: 'Family and friends' },
      fromMessage: null,
      title: '',
      parentAuthorName: '',
      miniature: null,
    });
    const left = list.find((n) => n.type === 'user_left_group');
    expect(left).toEqual({
      id: expect.stringMatching(UUID),
      entityType: 'notification',
      type: 'user_left_group',
      createdAt: toSeconds(leftAt),
      read: false,
      target: group.id,
      data: {},
      fromUser: { id: cleo.user.id, entityType: 'user', name: 'Cleo', avatar: null },
      fromGroup: { id: group.id, entityType: 'group', name: 'Family and friends' },
      fromMessage: null,
      title: '',
      parentAuthorName: '',
      miniature: null,
    });
    for (const n of list) expect(Number.isInteger(n.createdAt)).toBe(true);
  });

  it('gives group_name_change the data {previousGroupName, newGroupName}', async () => {
    const { api } = h;
    const list = await listOf(api, ana.key);
    const renamed = list.find((n) => n.type === 'group_name_change');
    expect(renamed).toEqual({
      id: expect.stringMatching(UUID),
      entityType: 'notification',
      type: 'group_name_change',
      createdAt: toSeconds(renamedAt),
      read: false,
      target: group.id,
      data: { previousGroupName: 'Family', newGroupName: 'Family and friends' },
      fromUser: { id: ben.user.id, entityType: 'user', name: 'Ben', avatar: null },
      fromGroup: { id: group.id, entityType: 'group', name: 'Family and friends' },
      fromMessage: null,
      title: '',
      parentAuthorName: '',
      miniature: null,
    });
  });

  it('lists only the owner’s notifications', async () => {
    const { api } = h;
    const anas = await listOf(api, ana.key);
    const bens = await listOf(api, ben.key);
    // Ben renamed the group himself, so he holds only the join and the leave.
    expect(bens.map((n) => n.type)).toEqual(['user_left_group', 'user_joined_group']);
    const anaIds = new Set(anas.map((n) => n.id));
    for (const n of bens) expect(anaIds.has(n.id)).toBe(false);
    // Cleo's notifications from the group she left are gone; she caused the others.
    expect(await listOf(api, cleo.key)).toEqual([]);
  });

  it('serves the same list with and without an explicit limit', async () => {
    const { api } = h;
    expect(await listOf(api, ana.key, 21)).toEqual(await listOf(api, ana.key));
  });

  it('answers 401 without a key', async () => {
    const { api } = h;
    expectError(await api.get('/me/notifications'), 401, 'auth_required');
    expectError(await api.get('/me/notifications/10'), 401, 'auth_required');
    expectError(await api.get('/me/notifications', { key: 'stale-key' }), 401, 'invalid_api_key');
  });
});

describe('GET /api/me/notifications/{limit}', () => {
  const h = useTestApp();
  const COUNT = 205;
  let ana: BuiltUser;

  beforeAll(async () => {
    const { t, api } = h;
    ana = await buildUser(t.ctx, { name: 'Ana' });
    const ben = await buildUser(t.ctx, { name: 'Ben' });
    const group = await buildGroup(t.ctx, { name: 'Name 0', members: [ana, ben] });
    // Each real rename by Ben gives Ana one notification.
    for (let i = 1; i <= COUNT; i += 1) {
      t.clock.advance(1_000);
      await rename(api, ben.key, group.id, `Name ${i}`);
    }
  });

  it('answers 50 items by default, the newest first', async () => {
    const { api } = h;
    const list = await listOf(api, ana.key);
    expect(list).toHaveLength(50);
    expect(list[0].data.newGroupName).toBe(`Name ${COUNT}`);
    expect(list[49].data.newGroupName).toBe(`Name ${COUNT - 49}`);
    for (let i = 1; i < list.length; i += 1) expect(list[i].createdAt).toBeLessThan(list[i - 1].createdAt);
  });

  it('answers exactly `limit` items', async () => {
    const { api } = h;
    const one = await listOf(api, ana.key, 1);
    expect(one).toHaveLength(1);
    expect(one[0].data.newGroupName).toBe(`Name ${COUNT}`);
    expect(await listOf(api, ana.key, 21)).toHaveLength(21);
    expect(await listOf(api, ana.key, 200)).toHaveLength(200);
  });

  it('lowers limits above 200 to 200', async () => {
    const { api } = h;
    const list = await listOf(api, ana.key, 500);
    expect(list).toHaveLength(200);
    expect(list[0].data.newGroupName).toBe(`Name ${COUNT}`);
    expect(list[199].data.newGroupName).toBe(`Name ${COUNT - 199}`);
    expect(await listOf(api, ana.key, 201)).toHaveLength(200);
    expect(await listOf(api, ana.key, 999999999)).toHaveLength(200);
  });

  it.each([['0'], ['-1'], ['abc'], ['1.5'], ['1e3']])('answers 400 invalid_field for limit %j', async (limit) => {
    const { api } = h;
    expectError(await api.get(`/me/notifications/${limit}`, { key: ana.key }), 400, 'invalid_field', 'limit');
  });
});

describe('GET, PUT and DELETE /api/notifications/{id}', () => {
  const h = useTestApp();
  let ana: BuiltUser;
  let ben: BuiltUser;
  let cleo: BuiltUser;
  let group: GroupRow;
  let renames = 0;

  beforeAll(async () => {
    const { t } = h;
    ana = await buildUser(t.ctx, { name: 'Ana' });
    ben = await buildUser(t.ctx, { name: 'Ben' });
    cleo = await buildUser(t.ctx, { name: 'Cleo' });
    group = await buildGroup(t.ctx, { name: 'Family', members: [ben, ana, cleo] });
  });

  /** Ben renames the group: Ana and Cleo each get a fresh notification, returned as [Ana's, Cleo's]. */
  async function freshPair(): Promise<[Json, Json]> {
    const { t, api } = h;
    t.clock.advance(1_000);
    renames += 1;
    await rename(api, ben.key, group.id, `Family ${renames}`);
    const anas = await listOf(api, ana.key, 1);
    const cleos = await listOf(api, cleo.key, 1);
    expect(anas[0].data.newGroupName).toBe(`Family ${renames}`);
    expect(cleos[0].data.newGroupName).toBe(`Family ${renames}`);
    expect(anas[0].id).not.toBe(cleos[0].id);
    return [anas[0], cleos[0]];
  }

  it('GET answers the owner the same object as the list', async () => {
    const { api } = h;
    const [mine] = await freshPair();
    const res = await api.get(`/notifications/${mine.id}`, { key: ana.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(mine);
    expect(res.body.entityType).toBe('notification');
  });

  it('GET lowercases the id', async () => {
    const { api } = h;
    const [mine] = await freshPair();
    const res = await api.get(`/notifications/${mine.id.toUpperCase()}`, { key: ana.key });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(mine.id);
  });

  it('answers 404 not_found for another user’s notification, and leaves it unchanged', async () => {
    const { api } = h;
    const [, theirs] = await freshPair();
    expectError(await api.get(`/notifications/${theirs.id}`, { key: ana.key }), 404, 'not_found');
    expectError(await api.put(`/notifications/${theirs.id}`, { key: ana.key, body: { read: true } }), 404, 'not_found');
    expectError(await api.delete(`/notifications/${theirs.id}`, { key: ana.key }), 404, 'not_found');
    const still = await api.get(`/notifications/${theirs.id}`, { key: cleo.key });
    expect(still.status).toBe(200);
    expect(still.body).toEqual(theirs);
    expect(still.body.read).toBe(false);
  });

  it('answers 404 for an unknown id and for a path segment that is not a UUID', async () => {
    const { api } = h;
    for (const id of [randomUUID(), 'not-a-uuid', '42']) {
      expectError(await api.get(`/notifications/${id}`, { key: ana.key }), 404, 'not_found');
      expectError(await api.put(`/notifications/${id}`, { key: ana.key, body: { read: true } }), 404, 'not_found');
      expectError(await api.delete(`/notifications/${id}`, { key: ana.key }), 404, 'not_found');
    }
  });

  it('PUT {read: true} marks it read and {read: false} marks it unread again', async () => {
    const { api } = h;
    const [mine, theirs] = await freshPair();
    const read = await api.put(`/notifications/${mine.id}`, { key: ana.key, body: { read: true } });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...mine, read: true });
    expect((await api.get(`/notifications/${mine.id}`, { key: ana.key })).body.read).toBe(true);
    expect((await listOf(api, ana.key)).find((n) => n.id === mine.id).read).toBe(true);
    // Only that notification changed.
    expect((await api.get(`/notifications/${theirs.id}`, { key: cleo.key })).body.read).toBe(false);

    const unread = await api.put(`/notifications/${mine.id}`, { key: ana.key, body: { read: false } });
    expect(unread.status).toBe(200);
    expect(unread.body).toEqual({ ...mine, read: false });
    expect((await api.get(`/notifications/${mine.id}`, { key: ana.key })).body.read).toBe(false);
  });

  it('PUT ignores other fields', async () => {
    const { api } = h;
    const [mine] = await freshPair();
    const res = await api.put(`/notifications/${mine.id}`, {
      key: ana.key,
      body: { read: true, type: 'new_message', target: 'x', id: randomUUID(), data: { a: 1 } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...mine, read: true });
    expect((await api.get(`/notifications/${mine.id}`, { key: ana.key })).body).toEqual({ ...mine, read: true });
  });

  it.each([['yes'], [1], [0], ['true'], [[]]])('PUT {read: %j} answers 400 invalid_field', async (value) => {
    const { api } = h;
    const [mine] = await freshPair();
    expectError(
      await api.put(`/notifications/${mine.id}`, { key: ana.key, body: { read: value } }),
      400,
      'invalid_field',
      'read',
    );
    expect((await api.get(`/notifications/${mine.id}`, { key: ana.key })).body.read).toBe(false);
  });

  it('DELETE answers 204 with no body; the notification is then gone', async () => {
    const { api } = h;
    const [mine, theirs] = await freshPair();
    const res = await api.delete(`/notifications/${mine.id}`, { key: ana.key });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectError(await api.get(`/notifications/${mine.id}`, { key: ana.key }), 404, 'not_found');
    expect((await listOf(api, ana.key)).map((n) => n.id)).not.toContain(mine.id);
    expectError(await api.delete(`/notifications/${mine.id}`, { key: ana.key }), 404, 'not_found');
    // Cleo's copy of the same event stays.
    expect((await api.get(`/notifications/${theirs.id}`, { key: cleo.key })).status).toBe(200);
  });

  it('answers 401 without a key', async () => {
    const { api } = h;
    const [mine] = await freshPair();
    expectError(await api.get(`/notifications/${mine.id}`), 401, 'auth_required');
    expectError(await api.put(`/notifications/${mine.id}`, { body: { read: true } }), 401, 'auth_required');
    expectError(await api.delete(`/notifications/${mine.id}`), 401, 'auth_required');
    expect((await api.get(`/notifications/${mine.id}`, { key: ana.key })).body.read).toBe(false);
  });
});

describe('POST /api/me/notifications/read-all', () => {
  const h = useTestApp();

  /** Ana and Cleo in a group where Ben renames three times, 10 s apart. */
  async function scene() {
    const { t, api } = h;
    const ana = await buildUser(t.ctx, { name: 'Ana' });
    const ben = await buildUser(t.ctx, { name: 'Ben' });
    const cleo = await buildUser(t.ctx, { name: 'Cleo' });
    const group = await buildGroup(t.ctx, { name: 'G 0', members: [ana, ben, cleo] });
    for (let i = 1; i <= 3; i += 1) {
      t.clock.advance(10_000);
      await rename(api, ben.key, group.id, `G ${i}`);
    }
    const list = await listOf(api, ana.key);
    expect(list).toHaveLength(3);
    // Newest first: [third, second, first].
    return { ana, ben, cleo, group, third: list[0], second: list[1], first: list[2] };
  }

  it('marks every unread notification read and answers how many changed', async () => {
    const { api } = h;
    const { ana, cleo, second } = await scene();
    // One is already read: it does not count.
    expect((await api.put(`/notifications/${second.id}`, { key: ana.key, body: { read: true } })).status).toBe(200);
    const res = await api.post('/me/notifications/read-all', { key: ana.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ updated: 2 });
    expect((await listOf(api, ana.key)).map((n) => n.read)).toEqual([true, true, true]);
    // Only the caller's notifications changed.
    expect((await listOf(api, cleo.key)).map((n) => n.read)).toEqual([false, false, false]);
  });

  it('answers {updated: 0} the second time', async () => {
    const { api } = h;
    const { ana } = await scene();
    expect((await api.post('/me/notifications/read-all', { key: ana.key, body: {} })).body).toEqual({ updated: 3 });
    const again = await api.post('/me/notifications/read-all', { key: ana.key, body: {} });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ updated: 0 });
  });

  it('with before, marks only notifications created at or before it', async () => {
    const { api } = h;
    const { ana, cleo, first, second, third } = await scene();
    // One second before the first: nothing.
    const none = await api.post('/me/notifications/read-all', { key: ana.key, body: { before: first.createdAt - 1 } });
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ updated: 0 });

    // Exactly the first one's time: that one only ("at or before").
    const one = await api.post('/me/notifications/read-all', { key: ana.key, body: { before: first.createdAt } });
    expect(one.body).toEqual({ updated: 1 });
    let list = await listOf(api, ana.key);
    expect(list.map((n) => [n.id, n.read])).toEqual([
      [third.id, false],
      [second.id, false],
      [first.id, true],
    ]);

    // Between the second and the third: the second only (the first is already read).
    const two = await api.post('/me/notifications/read-all', { key: ana.key, body: { before: second.createdAt + 5 } });
    expect(two.body).toEqual({ updated: 1 });
    list = await listOf(api, ana.key);
    expect(list.map((n) => n.read)).toEqual([false, true, true]);

    // Cleo's notifications of the same times stay unread.
    expect((await listOf(api, cleo.key)).map((n) => n.read)).toEqual([false, false, false]);

    // Without before: up to now.
    expect((await api.post('/me/notifications/read-all', { key: ana.key })).body).toEqual({ updated: 1 });
  });

  it('with a before in the future, marks them all', async () => {
    const { api } = h;
    const { ana, third } = await scene();
    const res = await api.post('/me/notifications/read-all', {
      key: ana.key,
      body: { before: third.createdAt + 3600 },
    });
    expect(res.body).toEqual({ updated: 3 });
  });

  it.each([['x'], [true], [{}], ['1767225600']])('answers 400 invalid_field for before %j', async (before) => {
    const { api } = h;
    const { ana } = await scene();
    expectError(
      await api.post('/me/notifications/read-all', { key: ana.key, body: { before } }),
      400,
      'invalid_field',
      'before',
    );
    expect((await listOf(api, ana.key)).map((n) => n.read)).toEqual([false, false, false]);
  });

  it('answers 401 without a key', async () => {
    const { api } = h;
    expectError(await api.post('/me/notifications/read-all'), 401, 'auth_required');
  });
});

describe('Who gets what (§10.1)', () => {
  const h = useTestApp();

  it('a join by invitation notifies every other member, not the joiner', async () => {
    const { t, api } = h;
    const a = await buildUser(t.ctx, { name: 'A' });
    const b = await buildUser(t.ctx, { name: 'B' });
    const c = await buildUser(t.ctx, { name: 'C' });
    const group = await buildGroup(t.ctx, { name: 'Club', members: [a, b] });
    t.clock.advance(1_000);
    const res = await api.post(`/groups/invitation/${group.secret_key}`, { key: c.key, body: {} });
    expect(res.status).toBe(200);
    for (const member of [a, b]) {
      const list = await listOf(api, member.key);
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({
        type: 'user_joined_group',
        target: group.id,
        read: false,
        createdAt: toSeconds(t.clock.now()),
        data: {},
        fromUser: { id: c.user.id, entityType: 'user', name: 'C', avatar: null },
        fromGroup: { id: group.id, entityType: 'group', name: 'Club' },
        fromMessage: null,
      });
    }
    expect(await listOf(api, c.key)).toEqual([]);

    // Joining again changes nothing and notifies nobody.
    const again = await api.post(`/groups/invitation/${group.secret_key}`, { key: c.key, body: {} });
    expect(again.status).toBe(200);
    expect(await listOf(api, a.key)).toHaveLength(1);
    expect(await listOf(api, b.key)).toHaveLength(1);
    expect(await listOf(api, c.key)).toEqual([]);
  });

  it('a join by signup notifies every other member', async () => {
    const { t, api } = h;
    const a = await buildUser(t.ctx, { name: 'A' });
    const group = await buildGroup(t.ctx, { name: 'Club', members: [a] });
    const res = await api.post('/signup', {
      body: { login: `newcomer-${randomUUID()}@example.org`, password: 'long enough pw', invite_key: group.secret_key },
    });
    expect(res.status).toBe(200);
    const list = await listOf(api, a.key);
    expect(list).toHaveLength(1);
    expect(list[0].type).toBe('user_joined_group');
    expect(list[0].fromUser.name).toMatch(/^newcomer-/);
    expect(await listOf(api, res.body.api_key)).toEqual([]);
  });

  it('a leave notifies the remaining members and deletes the leaver’s notifications from that group only', async () => {
    const { t, api } = h;
    const a = await buildUser(t.ctx, { name: 'A' });
    const b = await buildUser(t.ctx, { name: 'B' });
    const c = await buildUser(t.ctx, { name: 'C' });
    const d = await buildUser(t.ctx, { name: 'D' });
    const group = await buildGroup(t.ctx, { name: 'Club', members: [a, b] });
    const other = await buildGroup(t.ctx, { name: 'Other', members: [b, d] });
    // B gets a notification from each group.
    expect((await api.post(`/groups/invitation/${group.secret_key}`, { key: c.key, body: {} })).status).toBe(200);
    await rename(api, d.key, other.id, 'Other 2');
    expect((await listOf(api, b.key)).map((n) => n.type).sort()).toEqual(['group_name_change', 'user_joined_group']);

    t.clock.advance(1_000);
    const res = await api.post(`/groups/${group.id}/leave`, { key: b.key });
    expect(res.status).toBe(200);

    for (const member of [a, c]) {
      const left = (await listOf(api, member.key)).filter((n) => n.type === 'user_left_group');
      expect(left).toHaveLength(1);
      expect(left[0]).toMatchObject({
        target: group.id,
        createdAt: toSeconds(t.clock.now()),
        fromUser: { id: b.user.id, entityType: 'user', name: 'B', avatar: null },
        fromGroup: { id: group.id, entityType: 'group', name: 'Club' },
        fromMessage: null,
        data: {},
      });
    }
    const bList = await listOf(api, b.key);
    expect(bList).toHaveLength(1);
    expect(bList[0]).toMatchObject({ type: 'group_name_change', fromGroup: { id: other.id } });
    // D is in the other group only.
    expect((await listOf(api, d.key)).filter((n) => n.type === 'user_left_group')).toEqual([]);
  });

  it('a rename notifies every other member, not the renamer', async () => {
    const { t, api } = h;
    const a = await buildUser(t.ctx, { name: 'A' });
    const b = await buildUser(t.ctx, { name: 'B' });
    const c = await buildUser(t.ctx, { name: 'C' });
    const group = await buildGroup(t.ctx, { name: 'Club', members: [a, b, c] });
    await rename(api, a.key, group.id, '  Book club  ');
    expect(await listOf(api, a.key)).toEqual([]);
    for (const member of [b, c]) {
      const list = await listOf(api, member.key);
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({
        type: 'group_name_change',
        target: group.id,
        data: { previousGroupName: 'Club', newGroupName: 'Book club' },
        fromUser: { id: a.user.id, name: 'A' },
        fromGroup: { id: group.id, name: 'Book club' },
        fromMessage: null,
      });
    }
  });

  it('a rename to the same name notifies nobody', async () => {
    const { t, api } = h;
    const a = await buildUser(t.ctx, { name: 'A' });
    const b = await buildUser(t.ctx, { name: 'B' });
    const group = await buildGroup(t.ctx, { name: 'Club', members: [a, b] });
    await rename(api, a.key, group.id, 'Club');
    await rename(api, a.key, group.id, '  Club ');
    expect(await listOf(api, a.key)).toEqual([]);
    expect(await listOf(api, b.key)).toEqual([]);
  });

  it('a refused rename notifies nobody', async () => {
    const { t, api } = h;
    const a = await buildUser(t.ctx, { name: 'A' });
    const b = await buildUser(t.ctx, { name: 'B' });
    const group = await buildGroup(t.ctx, { name: 'Club', members: [a, b] });
    expectError(await api.put(`/groups/${group.id}`, { key: a.key, body: { name: 'A<b' } }), 400, 'invalid_name');
    expect(await listOf(api, b.key)).toEqual([]);
  });
});
