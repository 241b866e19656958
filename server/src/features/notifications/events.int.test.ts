import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../test/client.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp } from '../../../test/harness.js';
import { unmailedNotifications } from '../digests/queries.js';
import { hasUnmailedNotification } from './queries.js';

// What storing a group's notifications once per event (migration 0024) could get wrong: who an
// event reaches, per-member state against the read-all watermark, and per-member ids.

type Json = Record<string, unknown>;

async function listOf(api: ApiClient, u: BuiltUser): Promise<Json[]> {
  const res = await api.get('/me/notifications', { key: u.key });
  expect(res.status).toBe(200);
  return res.body as Json[];
}

describe('group notifications stored once per event', () => {
  const h = useTestApp();

  const post = async (u: BuiltUser, groupId: string, text: string): Promise<string> => {
    const res = await h.api.post('/messages', { key: u.key, body: { group: groupId, data: { text } } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const newTrio = async () => {
    const [ana, ben, cy] = [await buildUser(h.t.ctx), await buildUser(h.t.ctx), await buildUser(h.t.ctx)];
    const group = await buildGroup(h.t.ctx, { members: [ana, ben] });
    h.t.clock.advance(1000);
    return { ana, ben, cy, group };
  };
  const join = async (u: BuiltUser, key: string) =>
    expect((await h.api.post(`/groups/invitation/${key}`, { key: u.key, body: {} })).status).toBe(200);

  it('does not reach a member who joined after the event', async () => {
    const { ana, ben, cy, group } = await newTrio();
    const before = await post(ana, group.id, 'Before Cy');
    h.t.clock.advance(1000);
    await join(cy, group.secret_key);
    h.t.clock.advance(1000);
    const after = await post(ana, group.id, 'After Cy');
    expect((await listOf(h.api, cy)).map((n) => n.target)).toEqual([after]);
    expect((await listOf(h.api, ben)).map((n) => n.target)).toEqual([after, group.id, before]);
  });

  it('leaving and rejoining does not bring back what leaving deleted', async () => {
    const { ana, ben, group } = await newTrio();
    await post(ana, group.id, 'Old news');
    h.t.clock.advance(1000);
    expect((await h.api.post(`/groups/${group.id}/leave`, { key: ben.key })).status).toBe(200);
    h.t.clock.advance(1000);
    await join(ben, group.secret_key);
    expect(await listOf(h.api, ben)).toEqual([]);
    h.t.clock.advance(1000);
    const fresh = await post(ana, group.id, 'Fresh news');
    expect((await listOf(h.api, ben)).map((n) => n.target)).toEqual([fresh]);
  });

  it('read-all, then one marked unread again, then read-all again', async () => {
    const { ana, ben, group } = await newTrio();
    await post(ana, group.id, 'One');
    h.t.clock.advance(1000);
    await post(ana, group.id, 'Two');
    const readAll = await h.api.post('/me/notifications/read-all', { key: ben.key, body: {} });
    expect(readAll.body).toEqual({ updated: 2 });
    const [two, one] = await listOf(h.api, ben);
    expect([two?.read, one?.read]).toEqual([true, true]);
    const put = await h.api.put(`/notifications/${String(one?.id)}`, { key: ben.key, body: { read: false } });
    expect(put.body.read).toBe(false);
    expect((await listOf(h.api, ben)).map((n) => n.read)).toEqual([true, false]);
    h.t.clock.advance(1000);
    expect((await h.api.post('/me/notifications/read-all', { key: ben.key, body: {} })).body).toEqual({ updated: 1 });
    expect((await listOf(h.api, ben)).map((n) => n.read)).toEqual([true, true]);
    // Ana's own list is untouched by Ben's state: she is the actor of both, so they never reach her.
    expect(await listOf(h.api, ana)).toEqual([]);
  });

  it('a deleted one stays deleted through read-all, and others keep theirs', async () => {
    const { ana, ben, cy, group } = await newTrio();
    await join(cy, group.secret_key);
    h.t.clock.advance(1000);
    await post(ana, group.id, 'Delete me');
    const [mine] = await listOf(h.api, ben);
    expect((await h.api.delete(`/notifications/${String(mine?.id)}`, { key: ben.key })).status).toBe(204);
    expect((await h.api.post('/me/notifications/read-all', { key: ben.key, body: {} })).body).toEqual({ updated: 1 });
    expect((await listOf(h.api, ben)).map((n) => n.type)).toEqual(['user_joined_group']);
    expect((await listOf(h.api, cy)).map((n) => n.type)).toEqual(['new_message']);
  });

  it('gives each recipient their own id, and each answers 404 to the other', async () => {
    const { ana, ben, cy, group } = await newTrio();
    await join(cy, group.secret_key);
    h.t.clock.advance(1000);
    await post(ana, group.id, 'Ids');
    const [forBen] = await listOf(h.api, ben);
    const [forCy] = await listOf(h.api, cy);
    expect(forBen?.id).not.toBe(forCy?.id);
    expect(forBen?.target).toBe(forCy?.target);
    expect((await h.api.get(`/notifications/${String(forBen?.id)}`, { key: ben.key })).status).toBe(200);
    expect((await h.api.get(`/notifications/${String(forBen?.id)}`, { key: cy.key })).status).toBe(404);
    expect(
      (await h.api.put(`/notifications/${String(forCy?.id)}`, { key: ben.key, body: { read: true } })).status,
    ).toBe(404);
    expect((await h.api.delete(`/notifications/${String(forCy?.id)}`, { key: ben.key })).status).toBe(404);
    expect((await h.api.get(`/notifications/${String(forBen?.id)}`, { key: ana.key })).status).toBe(404);
  });

  it('a digest after read-all finds only what came after it', async () => {
    const { ana, ben, group } = await newTrio();
    await post(ana, group.id, 'Seen');
    h.t.clock.advance(1000);
    await h.api.post('/me/notifications/read-all', { key: ben.key, body: {} });
    const db = h.t.ctx.db.kysely;
    expect(await hasUnmailedNotification(db, ben.user.id, ['new_message'])).toBe(false);
    h.t.clock.advance(1000);
    const later = await post(ana, group.id, 'Not seen');
    expect(await hasUnmailedNotification(db, ben.user.id, ['new_message'])).toBe(true);
    expect((await unmailedNotifications(db, ben.user.id, ['new_message'], 10)).map((n) => n.target)).toEqual([later]);
  });
});
