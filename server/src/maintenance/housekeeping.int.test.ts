import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../test/client.js';
import { buildGroup, buildUser } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { derivedKey, parseImageRequest } from '../features/files/images.js';
import { storeLink } from '../features/links/service.js';
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
    // Its messages go with it (the cascade also runs the front-count triggers of migration 0009).
    const posted = await api.post('/messages', { key: ana.key, body: { group: left.id, data: { text: 'Bye' } } });
    expect(posted.status, posted.text).toBe(201);
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
    const orphan = await t.ctx.db.kysely.selectFrom('messages').select('id').where('group_id', '=', left.id).execute();
    expect(orphan).toEqual([]);
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

  describe('unattached files (§4.3, §7.1)', () => {
    const HOUR = 60 * 60 * 1000;
    const upload = async (key: string): Promise<string> => {
      const boundary = 'kith-housekeeping';
      const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#0a0' } })
        .png()
        .toBuffer();
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/files',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-auth-token': key },
        payload: Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
          ),
          png,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
      });
      expect(res.statusCode, res.body).toBe(201);
      return (JSON.parse(res.body) as { id: string }).id;
    };
    const row = (id: string) => t.ctx.db.kysely.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();

    it('deletes files attached nowhere after 24 hours with their bytes and thumbnails, and keeps the used ones', async () => {
      const ana = await buildUser(t.ctx);
      const group = await buildGroup(t.ctx, { members: [ana] });
      const loose = await upload(ana.key);
      const attached = await upload(ana.key);
      const avatar = await upload(ana.key);
      const replaced = await upload(ana.key);
      const linkImage = await upload(ana.key);
      expect((await api.post('/messages', { key: ana.key, body: { group: group.id, files: [attached] } })).status).toBe(
        201,
      );
      expect((await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { avatar: replaced } })).status).toBe(200);
      expect((await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { avatar } })).status).toBe(200);
      await t.ctx.db.kysely.updateTable('files').set({ uploader_id: null }).where('id', '=', linkImage).execute();
      await storeLink(t.ctx, 'https://example.org/kept', { origin: 'https://example.org/kept' }, 0, linkImage);
      // A thumbnail of the loose file exists before the clean-up.
      expect(
        (
          await t.app.inject({
            method: 'GET',
            url: `/api/images/crop/80/80/${loose}`,
            headers: { 'x-auth-token': ana.key },
          })
        ).statusCode,
      ).toBe(200);
      const looseRow = await row(loose);
      if (looseRow === undefined) throw new Error('no row');
      const thumb = derivedKey(looseRow, parseImageRequest('crop', '80', '80'), 'jpeg');
      expect(await t.ctx.files.stat(thumb)).not.toBeNull();

      t.clock.advance(RETENTION.unattachedFileMs - HOUR);
      await runHousekeeping(t.ctx);
      expect(await row(loose)).toBeDefined();
      expect(await row(replaced)).toBeDefined();

      t.clock.advance(2 * HOUR);
      const report = await runHousekeeping(t.ctx);
      expect(report.filesDeleted).toBeGreaterThanOrEqual(2);
      expect(await row(loose)).toBeUndefined();
      expect(await t.ctx.files.stat(looseRow.storage_key)).toBeNull();
      expect(await t.ctx.files.stat(thumb)).toBeNull();
      // A replaced avatar attached nowhere is no longer an avatar: it goes too.
      expect(await row(replaced)).toBeUndefined();
      for (const kept of [attached, avatar, linkImage]) {
        const stored = await row(kept);
        expect(stored, kept).toBeDefined();
        expect(await t.ctx.files.stat(stored?.storage_key ?? '')).not.toBeNull();
      }
      // Idempotent: nothing more to do.
      expect((await runHousekeeping(t.ctx)).filesDeleted).toBe(0);
    });

    it('keeps a replaced avatar that is attached to a message', async () => {
      const ben = await buildUser(t.ctx);
      const group = await buildGroup(t.ctx, { members: [ben] });
      const old = await upload(ben.key);
      const next = await upload(ben.key);
      expect((await api.put(`/users/${ben.user.id}`, { key: ben.key, body: { avatar: old } })).status).toBe(200);
      expect((await api.post('/messages', { key: ben.key, body: { group: group.id, files: [old] } })).status).toBe(201);
      expect((await api.put(`/users/${ben.user.id}`, { key: ben.key, body: { avatar: next } })).status).toBe(200);
      t.clock.advance(RETENTION.unattachedFileMs + HOUR);
      await runHousekeeping(t.ctx);
      expect(await row(old)).toBeDefined();
      expect(await row(next)).toBeDefined();
    });
  });
});
