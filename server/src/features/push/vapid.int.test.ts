import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { buildUser } from '../../../test/factories.js';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import { PushServiceStandIn } from '../../../test/push-service.js';
import { openDatabase } from '../../db/database.js';
import { closeContext, createContext } from '../../setup.js';
import { vapidKeys } from './vapid.js';

/**
 * The VAPID keys (docs/api §11.9, docs/decisions.md "Web Push"): made once and kept in the
 * database, so every process that shares it signs with the same ones; given by configuration when
 * set; made again, with the devices dropped, when the stored ones cannot be opened.
 */
describe('VAPID keys', () => {
  const service = new PushServiceStandIn();
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    await service.start();
    t = await createTestApp({ PUSH_ALLOW_LOOPBACK: 'true' });
    api = new ApiClient(t.app);
  });
  afterAll(async () => {
    await t.close();
    await service.stop();
  });

  /** Another server process on the same database. */
  const otherProcess = () =>
    createContext(t.config, { db: openDatabase(t.config.database), clock: t.clock, log: t.ctx.log as never });

  it('are made once and shared by every process on the database', async () => {
    const ana = await buildUser(t.ctx);
    const answered = (await api.get('/me/push-subscriptions', { key: ana.key })).body.publicKey as string;
    const other = await otherProcess();
    try {
      const keys = await vapidKeys(other);
      expect(keys.publicKey).toBe(answered);
      expect(keys).toEqual(await vapidKeys(t.ctx));
      // Kept sealed: the private key is not readable in the database.
      const stored = await t.ctx.db.kysely
        .selectFrom('kith_meta')
        .select('value')
        .where('key', '=', 'vapid_keys')
        .executeTakeFirstOrThrow();
      expect(stored.value).not.toContain(keys.privateKey);
    } finally {
      await closeContext(other);
    }
  });

  it('come from VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY when set', async () => {
    const given = webpush.generateVAPIDKeys();
    const other = await createContext(
      { ...t.config, push: { ...t.config.push, vapidKeys: given } },
      { db: openDatabase(t.config.database), clock: t.clock, log: t.ctx.log as never },
    );
    try {
      expect(await vapidKeys(other)).toEqual(given);
    } finally {
      await closeContext(other);
    }
  });

  it('are made again, and the devices dropped, when the stored ones cannot be opened (SECRET_KEY changed)', async () => {
    const ana = await buildUser(t.ctx);
    const device = service.device();
    expect((await api.post('/me/push-subscriptions', { key: ana.key, body: device.subscription() })).status).toBe(201);
    const before = await vapidKeys(t.ctx);
    const other = await createContext(
      { ...t.config, secretKey: 'another-secret-another-secret-another-42' },
      { db: openDatabase(t.config.database), clock: t.clock, log: t.ctx.log as never },
    );
    try {
      const after = await vapidKeys(other);
      expect(after.publicKey).not.toBe(before.publicKey);
      expect(await t.ctx.db.kysely.selectFrom('push_subscriptions').select('id').execute()).toEqual([]);
    } finally {
      await closeContext(other);
    }
  });
});
