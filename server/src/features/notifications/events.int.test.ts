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

  it('lists the newest across groups each holding more than the limit, past deleted and unreached ones', async () => {
    // The list takes at most `limit` events of each group before sorting them together
    // (listNotifications): a branch cut before the member's deletions, the actor's own events or
    // the join time are applied would end a list early or show another limit's order.
    const { ana, ben, cy, group: g1 } = await newTrio();
    const seconds = () => Math.floor(h.t.clock.now() / 1000);
    await join(cy, g1.secret_key);
    const expected: { at: number; target: string; group: string }[] = [{ at: seconds(), target: g1.id, group: g1.id }];
    const g2 = await buildGroup(h.t.ctx, { members: [ana, ben] });
    const g3 = await buildGroup(h.t.ctx, { members: [ana] });
    h.t.clock.advance(1000);
    for (let i = 0; i < 3; i += 1) await post(ana, g3.id, `Before Ben ${i}`);
    h.t.clock.advance(1000);
    await join(ben, g3.secret_key);
    const posted = async (u: BuiltUser, groupId: string, text: string) =>
      expected.push({ at: seconds(), target: await post(u, groupId, text), group: groupId });
    for (let i = 0; i < 8; i += 1) {
      h.t.clock.advance(1000);
      // Events of two groups in the same millisecond: ties between branches.
      await posted(ana, g1.id, `One ${i}`);
      await posted(cy, g1.id, `Cy ${i}`);
      await posted(ana, g2.id, `Two ${i}`);
      await post(ben, g2.id, `Ben's own ${i}`);
      if (i % 2 === 0) await posted(ana, g3.id, `Three ${i}`);
    }
    const listed = async (limit: number) => {
      const res = await h.api.get(`/me/notifications/${limit}`, { key: ben.key });
      expect(res.status).toBe(200);
      return res.body as Json[];
    };
    // Ben deletes g1's five newest (its branch must reach further back) and reads g2's newest.
    const before = await listed(200);
    const deleted = new Set(
      expected
        .filter((e) => e.group === g1.id)
        .slice(-5)
        .map((e) => e.target),
    );
    for (const n of before.filter((n) => deleted.has(String(n.target)))) {
      expect((await h.api.delete(`/notifications/${String(n.id)}`, { key: ben.key })).status).toBe(204);
    }
    const readTarget = expected.filter((e) => e.group === g2.id).at(-1)?.target;
    const toRead = before.find((n) => n.target === readTarget);
    const put = await h.api.put(`/notifications/${String(toRead?.id)}`, { key: ben.key, body: { read: true } });
    expect(put.status).toBe(200);

    const full = await listed(200);
    const byTime = (rows: { at: number; target: string }[]) =>
      rows.map((r) => `${r.at} ${r.target}`).sort((a, b) => (a < b ? 1 : -1));
    expect(byTime(full.map((n) => ({ at: Number(n.createdAt), target: String(n.target) })))).toEqual(
      byTime(expected.filter((e) => !deleted.has(e.target))),
    );
    expect(full.map((n) => Number(n.createdAt))).toEqual(full.map((n) => Number(n.createdAt)).sort((a, b) => b - a));
    expect(full.filter((n) => n.read === true).map((n) => n.target)).toEqual([readTarget]);
    for (const limit of [1, 2, 3, 5, 8, 13, 21]) expect(await listed(limit)).toEqual(full.slice(0, limit));
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
