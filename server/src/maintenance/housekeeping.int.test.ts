import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../test/client.js';
import { buildGroup, buildUser } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { RETENTION, runHousekeeping } from './housekeeping.js';

const DAY = 24 * 60 * 60 * 1000;

describe('housekeeping', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  const groupExists = async (id: string) =>
    (await t.ctx.db.kysely.selectFrom('groups').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

  it('purges a group 30 days after its last member left, not before, and not once someone rejoined', async () => {
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    const left = await buildGroup(t.ctx, { members: [ana] });
    const rejoined = await buildGroup(t.ctx, { members: [ben] });
    const kept = await buildGroup(t.ctx, { members: [ana, ben] });
    expect((await api.post(`/groups/${left.id}/leave`, { key: ana.key })).status).toBe(200);
    expect((await api.post(`/groups/${rejoined.id}/leave`, { key: ben.key })).status).toBe(200);

    t.clock.advance(RETENTION.emptyGroupMs - DAY);
    await runHousekeeping(t.ctx);
    expect(await groupExists(left.id)).toBe(true);
    // Within the 30 days the invite key still works; joining saves the group.
    expect((await api.post(`/groups/invitation/${rejoined.secret_key}`, { key: ben.key })).status).toBe(200);

    t.clock.advance(2 * DAY);
    const report = await runHousekeeping(t.ctx);
    expect(report.groupsPurged).toBe(1);
    expect(await groupExists(left.id)).toBe(false);
    expect(await groupExists(rejoined.id)).toBe(true);
    expect(await groupExists(kept.id)).toBe(true);
    // The purged group's invite key is gone with it.
    const late = await api.post(`/groups/invitation/${left.secret_key}`, { key: ana.key });
    expect(late.body.code).toBe('invalid_invite_key');
  });

  it('removes notifications after 365 days and keeps younger ones', async () => {
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    const group = await buildGroup(t.ctx, { members: [ana, ben] });
    await api.put(`/groups/${group.id}`, { key: ben.key, body: { name: 'Old news' } });
    t.clock.advance(200 * DAY);
    await api.put(`/groups/${group.id}`, { key: ben.key, body: { name: 'Fresh news' } });
    t.clock.advance(166 * DAY);
    const report = await runHousekeeping(t.ctx);
    expect(report.notificationsExpired).toBeGreaterThanOrEqual(1);
    const list = await api.get('/me/notifications', { key: ana.key });
    expect(list.body.map((n: { data: { newGroupName: string } }) => n.data.newGroupName)).toEqual(['Fresh news']);
  });

  it('drops reset keys a day after they expired', async () => {
    const ana = await buildUser(t.ctx);
    await api.post('/password-reset-mail', { body: { mail: ana.user.login } });
    const count = async () =>
      (
        await t.ctx.db.kysely
          .selectFrom('password_reset_keys')
          .select('id')
          .where('user_id', '=', ana.user.id)
          .execute()
      ).length;
    expect(await count()).toBe(1);
    t.clock.advance(60 * 60 * 1000 + RETENTION.resetKeyMs - 1000);
    await runHousekeeping(t.ctx);
    expect(await count()).toBe(1);
    t.clock.advance(2000);
    await runHousekeeping(t.ctx);
    expect(await count()).toBe(0);
  });
});
