import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@kith/common';
import { ApiClient } from '../../../test/client.js';
import { expectError, UUID_V4 } from '../../../test/expect.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import { PushServiceStandIn, type Device } from '../../../test/push-service.js';
import { pushText } from './payload.js';
import { pushLimits } from './sender.js';

/**
 * Web Push (docs/api §11.9, issue 21) against a push service stand-in on loopback: the test makes
 * each device's keys itself and decrypts what the server pushed (RFC 8291, http_ece), as a browser
 * would. The job queue is driven by the tests on the test clock (`drain`), so "a minute later" is a
 * clock moved by hand and nothing waits on time.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;

describe('Web Push (§11.9)', () => {
  const service = new PushServiceStandIn();
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    await service.start();
    t = await createTestApp({ PUSH_ALLOW_LOOPBACK: 'true', TIME_ZONE: 'UTC' });
    api = new ApiClient(t.app);
    t.clock.set(Date.parse('2026-06-03T10:00:00Z'));
  });
  afterAll(async () => {
    await t.close();
    await service.stop();
  });

  async function member(name: string, data: Record<string, string> = {}): Promise<BuiltUser> {
    const user = await buildUser(t.ctx, { name });
    if (Object.keys(data).length > 0) {
      const res = await api.put(`/users/${user.user.id}`, { key: user.key, body: { data } });
      expect(res.status, res.text).toBe(200);
    }
    return user;
  }

  async function subscribe(user: BuiltUser, device: Device = service.device()): Promise<Device> {
    const res = await api.post('/me/push-subscriptions', { key: user.key, body: device.subscription('Phone') });
    expect(res.status, res.text).toBe(201);
    return device;
  }

  /** Posts through the API a few seconds after the previous request. */
  async function post(author: BuiltUser, group: string, data: object, parent?: string): Promise<string> {
    t.clock.advance(5 * SECOND);
    const res = await api.post('/messages', {
      key: author.key,
      body: { group, data, ...(parent === undefined ? {} : { parent }) },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  }

  /** Lets the collapsing minute pass and runs what is due. */
  async function aMinuteLater(): Promise<void> {
    t.clock.advance(MINUTE);
    await t.ctx.jobs.drain();
  }

  const pushJobsOf = (user: BuiltUser) =>
    t.ctx.db.kysely
      .selectFrom('jobs')
      .select(['status', 'run_after'])
      .where('name', '=', 'push-notifications')
      .where('payload', '=', JSON.stringify({ userId: user.user.id }))
      .execute();

  describe('subscriptions', () => {
    it('answers 401 to a visitor on every route', async () => {
      expectError(await api.get('/me/push-subscriptions'), 401, 'auth_required');
      expectError(
        await api.post('/me/push-subscriptions', { body: service.device().subscription() }),
        401,
        'auth_required',
      );
      expectError(
        await api.delete('/me/push-subscriptions/4b0f7d0e-2d4c-4f5e-9a43-8c1a0e8d6f11'),
        401,
        'auth_required',
      );
      expectError(await api.put('/me/presence', { body: { device: 'tab1', focused: true } }), 401, 'auth_required');
    });

    it('lists no device at first, with the VAPID public key (a P-256 point)', async () => {
      const ana = await member('Ana');
      const res = await api.get('/me/push-subscriptions', { key: ana.key });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['publicKey', 'subscriptions']);
      expect(res.body.subscriptions).toEqual([]);
      const key = Buffer.from(res.body.publicKey as string, 'base64url');
      expect(key.length).toBe(65);
      expect(key[0]).toBe(4);
      // The same keys for everyone, and on every call: they were made once.
      const ben = await member('Ben');
      expect((await api.get('/me/push-subscriptions', { key: ben.key })).body.publicKey).toBe(res.body.publicKey);
    });

    it('adds a device (201), lists it, and updates it when it subscribes again (200)', async () => {
      const ana = await member('Ana');
      const device = service.device();
      const res = await api.post('/me/push-subscriptions', {
        key: ana.key,
        body: device.subscription('Firefox on Android'),
      });
      expect(res.status, res.text).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'endpoint', 'id', 'label', 'lastPushAt']);
      expect(res.body).toMatchObject({ endpoint: device.endpoint, label: 'Firefox on Android', lastPushAt: null });
      expect(res.body.id).toMatch(UUID_V4);
      expect(res.body.createdAt).toBe(Math.floor(t.clock.now() / 1000));
      const again = await api.post('/me/push-subscriptions', { key: ana.key, body: device.subscription('Renamed') });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ id: res.body.id, label: 'Renamed' });
      const list = await api.get('/me/push-subscriptions', { key: ana.key });
      expect(list.body.subscriptions).toEqual([again.body]);
      // Without a label, subscribing again keeps the one it had.
      const unlabelled = await api.post('/me/push-subscriptions', { key: ana.key, body: device.subscription() });
      expect(unlabelled.status).toBe(200);
      expect(unlabelled.body.label).toBe('Renamed');
    });

    it('moves a known endpoint to whoever subscribes it next (a shared tablet)', async () => {
      const ana = await member('Ana');
      const ben = await member('Ben');
      const tablet = await subscribe(ana);
      const res = await api.post('/me/push-subscriptions', { key: ben.key, body: tablet.subscription('Tablet') });
      expect(res.status).toBe(200);
      expect((await api.get('/me/push-subscriptions', { key: ana.key })).body.subscriptions).toEqual([]);
      expect((await api.get('/me/push-subscriptions', { key: ben.key })).body.subscriptions).toEqual([res.body]);
    });

    it('removes only the caller’s own device; another’s, an unknown or a malformed id is 404', async () => {
      const ana = await member('Ana');
      const ben = await member('Ben');
      await subscribe(ana);
      const anaDevice = (await api.get('/me/push-subscriptions', { key: ana.key })).body.subscriptions[0].id as string;
      expectError(await api.delete(`/me/push-subscriptions/${anaDevice}`, { key: ben.key }), 404, 'not_found');
      expectError(
        await api.delete('/me/push-subscriptions/4b0f7d0e-2d4c-4f5e-9a43-8c1a0e8d6f11', { key: ana.key }),
        404,
        'not_found',
      );
      expectError(await api.delete('/me/push-subscriptions/not-an-id', { key: ana.key }), 404, 'not_found');
      expect((await api.get('/me/push-subscriptions', { key: ana.key })).body.subscriptions).toHaveLength(1);
      const res = await api.delete(`/me/push-subscriptions/${anaDevice}`, { key: ana.key });
      expect(res.status).toBe(204);
      expect((await api.get('/me/push-subscriptions', { key: ana.key })).body.subscriptions).toEqual([]);
    });

    it('lets the devices go with a deleted account', async () => {
      const ana = await member('Ana');
      await subscribe(ana);
      const res = await api.delete(`/users/${ana.user.id}`, { key: ana.key });
      expect(res.status, res.text).toBe(204);
      const left = await t.ctx.db.kysely
        .selectFrom('push_subscriptions')
        .select('id')
        .where('user_id', '=', ana.user.id)
        .execute();
      expect(left).toEqual([]);
    });

    it('refuses bad bodies with 400 and a stable code, and records nothing', async () => {
      const ana = await member('Ana');
      const good = service.device().subscription();
      const cases: [unknown, string, string][] = [
        [{ ...good, endpoint: undefined }, 'missing_field', 'endpoint'],
        [{ ...good, endpoint: 42 }, 'invalid_field', 'endpoint'],
        [{ ...good, keys: undefined }, 'missing_field', 'keys'],
        [{ ...good, keys: { ...good.keys, p256dh: 'c2hvcnQ' } }, 'invalid_push_subscription', 'keys.p256dh'],
        [
          { ...good, keys: { ...good.keys, p256dh: Buffer.alloc(65, 7).toString('base64url') } },
          'invalid_push_subscription',
          'keys.p256dh',
        ],
        [
          { ...good, keys: { ...good.keys, auth: Buffer.alloc(15).toString('base64url') } },
          'invalid_push_subscription',
          'keys.auth',
        ],
        [{ ...good, keys: { ...good.keys, auth: '!!not base64!!' } }, 'invalid_push_subscription', 'keys.auth'],
        [{ ...good, keys: { p256dh: good.keys.p256dh } }, 'missing_field', 'keys.auth'],
        [{ ...good, label: 'x'.repeat(101) }, 'invalid_field', 'label'],
        // Not a push service the server may call: plain http off loopback, private and link-local
        // addresses, credentials, odd ports, what is not a URL at all.
        [{ ...good, endpoint: 'http://push.example.org/abc' }, 'invalid_push_subscription', 'endpoint'],
        [{ ...good, endpoint: 'https://10.1.2.3/abc' }, 'invalid_push_subscription', 'endpoint'],
        [{ ...good, endpoint: 'https://169.254.169.254/latest' }, 'invalid_push_subscription', 'endpoint'],
        [{ ...good, endpoint: 'https://[fd00::1]/abc' }, 'invalid_push_subscription', 'endpoint'],
        [{ ...good, endpoint: 'https://user:pw@push.example.org/abc' }, 'invalid_push_subscription', 'endpoint'],
        [{ ...good, endpoint: 'https://push.example.org:25/abc' }, 'invalid_push_subscription', 'endpoint'],
        [{ ...good, endpoint: 'not a url' }, 'invalid_push_subscription', 'endpoint'],
        [
          { ...good, endpoint: `https://push.example.org/${'a'.repeat(2048)}` },
          'invalid_push_subscription',
          'endpoint',
        ],
      ];
      for (const [body, code, field] of cases) {
        expectError(await api.post('/me/push-subscriptions', { key: ana.key, body }), 400, code, field);
      }
      expectError(await api.post('/me/push-subscriptions', { key: ana.key, body: '[1]' }), 400, 'invalid_json');
      expect((await api.get('/me/push-subscriptions', { key: ana.key })).body.subscriptions).toEqual([]);
    });

    it(`keeps at most ${LIMITS.pushSubscriptionsPerUser} devices per user (409), and a known one still updates`, async () => {
      const ana = await member('Ana');
      const devices: Device[] = [];
      for (let i = 0; i < LIMITS.pushSubscriptionsPerUser; i++) devices.push(await subscribe(ana));
      expectError(
        await api.post('/me/push-subscriptions', { key: ana.key, body: service.device().subscription() }),
        409,
        'too_many_push_subscriptions',
      );
      const again = await api.post('/me/push-subscriptions', {
        key: ana.key,
        body: devices[0]?.subscription('Still me'),
      });
      expect(again.status).toBe(200);
      expect((await api.get('/me/push-subscriptions', { key: ana.key })).body.subscriptions).toHaveLength(
        LIMITS.pushSubscriptionsPerUser,
      );
    });

    it('refuses a bad presence report with 400', async () => {
      const ana = await member('Ana');
      expectError(
        await api.put('/me/presence', { key: ana.key, body: { focused: true } }),
        400,
        'missing_field',
        'device',
      );
      expectError(
        await api.put('/me/presence', { key: ana.key, body: { device: 'a b', focused: true } }),
        400,
        'invalid_field',
        'device',
      );
      expectError(
        await api.put('/me/presence', { key: ana.key, body: { device: 'x'.repeat(65), focused: true } }),
        400,
        'invalid_field',
        'device',
      );
      expectError(
        await api.put('/me/presence', { key: ana.key, body: { device: 'tab1' } }),
        400,
        'missing_field',
        'focused',
      );
      expectError(
        await api.put('/me/presence', { key: ana.key, body: { device: 'tab1', focused: 'yes' } }),
        400,
        'invalid_field',
        'focused',
      );
      expect((await api.put('/me/presence', { key: ana.key, body: { device: 'tab-1_A', focused: true } })).status).toBe(
        204,
      );
    });
  });

  describe('account settings', () => {
    it('stores the push choice, quiet hours and time zone, and answers them in Me once set', async () => {
      const ana = await member('Ana');
      const before = await api.get('/me', { key: ana.key });
      expect(before.body.data).not.toHaveProperty('push_notifications');
      expect(before.body.data).not.toHaveProperty('quiet_hours');
      expect(before.body.data).not.toHaveProperty('time_zone');
      const data = { push_notifications: 'mentions_replies', quiet_hours: '22:30-07:00', time_zone: 'Asia/Seoul' };
      const res = await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data } });
      expect(res.status, res.text).toBe(200);
      expect((await api.get('/me', { key: ana.key })).body.data).toMatchObject(data);
      await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { quiet_hours: '' } } });
      expect((await api.get('/me', { key: ana.key })).body.data.quiet_hours).toBe('');
    });

    it.each([
      ['push_notifications', 'sometimes'],
      ['quiet_hours', '22:00'],
      ['quiet_hours', '25:00-07:00'],
      ['quiet_hours', '08:00-08:00'],
      ['time_zone', 'Mars/Olympus'],
      ['time_zone', ''],
    ])('refuses data.%s = %j with 400 invalid_field and changes nothing', async (key, value) => {
      const ana = await member('Ana', {
        push_notifications: 'all',
        quiet_hours: '23:00-06:00',
        time_zone: 'Europe/Paris',
      });
      const res = await api.put(`/users/${ana.user.id}`, {
        key: ana.key,
        body: { name: 'Renamed', data: { [key]: value } },
      });
      expectError(res, 400, 'invalid_field', `data.${key}`);
      const me = (await api.get('/me', { key: ana.key })).body;
      expect(me.name).toBe('Ana');
      expect(me.data).toMatchObject({
        push_notifications: 'all',
        quiet_hours: '23:00-06:00',
        time_zone: 'Europe/Paris',
      });
    });

    it('says in /api/info that the server pushes', async () => {
      expect((await api.get('/info')).body.push).toBe(true);
    });
  });

  describe('pushes', () => {
    it('pushes a burst of 5 comments as ONE push a minute after the first, in the recipient’s language', async () => {
      const ana = await member('Ana', { lang: 'ko_KR' });
      const ben = await member('Ben');
      const group = (await buildGroup(t.ctx, { name: '소풍', members: [ana, ben] })).id;
      const phone = await subscribe(ana);
      const picnic = await post(ana, group, { title: 'Picnic', text: 'Sunday at noon?' });
      const comments: string[] = [];
      for (let i = 0; i < 5; i++) comments.push(await post(ben, group, { text: `Comment ${i + 1}` }, picnic));
      // One waiting job for the whole burst; before the minute is over nothing is pushed.
      expect(await pushJobsOf(ana)).toHaveLength(1);
      await t.ctx.jobs.drain();
      expect(service.pushesTo(phone)).toEqual([]);
      await aMinuteLater();
      const [push, ...more] = service.pushesTo(phone);
      expect(more).toEqual([]);
      if (push === undefined) throw new Error('no push');
      expect(push.headers['content-encoding']).toBe('aes128gcm');
      expect(Number(push.headers.ttl)).toBeGreaterThan(0);
      expect(push.headers.urgency).toBe('normal');
      const publicKey = (await api.get('/me/push-subscriptions', { key: ana.key })).body.publicKey as string;
      expect(push.headers.authorization).toMatch(new RegExp(`^vapid t=[\\w-]+\\.[\\w-]+\\.[\\w-]+, k=${publicKey}$`));
      const payload = phone.read(push);
      expect(payload).toEqual({
        title: '소풍',
        body: pushText('ko_KR', 'several_in_group', { count: 5, group: '소풍' }),
        url: `/messages/${picnic}/${comments[4]}`,
        tag: `kith-${picnic}`,
        lang: 'ko-KR',
        count: 5,
      });
      expect(payload.body).toBe('소풍에 새 알림 5개');
      // The device's list shows when it last accepted a push; nothing is pushed twice.
      const [device] = (await api.get('/me/push-subscriptions', { key: ana.key })).body.subscriptions;
      expect(device.lastPushAt).toBe(Math.floor(t.clock.now() / 1000));
      await aMinuteLater();
      expect(service.pushesTo(phone)).toHaveLength(1);
      // The author is not pushed her own comments' notifications: Ben has no device, Ana wrote none.
    });

    it('pushes one notification as its own sentence, opening the comment (ru_RU)', async () => {
      const cleo = await member('Cléo', { lang: 'ru_RU' });
      const ben = await member('Ben');
      const group = (await buildGroup(t.ctx, { name: 'Дача', members: [cleo, ben] })).id;
      const phone = await subscribe(cleo);
      const laptop = await subscribe(cleo);
      const parent = await post(cleo, group, { title: 'Шашлыки', text: 'В субботу' });
      const comment = await post(ben, group, { text: 'Я приду' }, parent);
      await aMinuteLater();
      // Every device of hers gets the same push.
      for (const device of [phone, laptop]) {
        const pushes = service.pushesTo(device);
        expect(pushes).toHaveLength(1);
        expect(device.read(pushes[0] as (typeof pushes)[0])).toEqual({
          title: 'Дача',
          body: 'Ben прокомментировал(а) «Шашлыки»',
          url: `/messages/${parent}/${comment}`,
          tag: `kith-${parent}`,
          lang: 'ru-RU',
          count: 1,
        });
      }
    });

    it('counts notifications from several groups together, in the user’s language (en_US)', async () => {
      const dan = await member('Dan');
      const ben = await member('Ben');
      const one = (await buildGroup(t.ctx, { name: 'One', members: [dan, ben] })).id;
      const two = (await buildGroup(t.ctx, { name: 'Two', members: [dan, ben] })).id;
      const phone = await subscribe(dan);
      await post(ben, one, { text: 'Hello one' });
      await post(ben, two, { text: 'Hello two' });
      await aMinuteLater();
      const [push] = service.pushesTo(phone);
      if (push === undefined) throw new Error('no push');
      expect(phone.read(push)).toEqual({
        title: 'Kith',
        body: '2 new notifications in your groups',
        url: '/',
        tag: 'kith-groups',
        lang: 'en-US',
        count: 2,
      });
    });

    it('pushes nothing while a browser of the user has Kith in front, and again once it is not', async () => {
      const ana = await member('Ana');
      const ben = await member('Ben');
      const group = (await buildGroup(t.ctx, { members: [ana, ben] })).id;
      const phone = await subscribe(ana);
      expect((await api.put('/me/presence', { key: ana.key, body: { device: 'desk', focused: true } })).status).toBe(
        204,
      );
      await post(ben, group, { text: 'Seen live' });
      await aMinuteLater();
      expect(service.pushesTo(phone)).toEqual([]);
      // Blurred: the next notification is pushed, alone (the one seen live is not pushed later).
      await api.put('/me/presence', { key: ana.key, body: { device: 'desk', focused: false } });
      await post(ben, group, { text: 'While away' });
      await aMinuteLater();
      expect(service.pushesTo(phone).map((p) => phone.read(p).count)).toEqual([1]);
      expect(phone.read(service.pushesTo(phone)[0] as never).body).toBe('Ben posted “While away”');
    });

    it('counts a focus report for 90 seconds only: a browser that vanished no longer holds pushes back', async () => {
      const ana = await member('Ana');
      const ben = await member('Ben');
      const group = (await buildGroup(t.ctx, { members: [ana, ben] })).id;
      const phone = await subscribe(ana);
      await api.put('/me/presence', { key: ana.key, body: { device: 'gone', focused: true } });
      t.clock.advance(30 * SECOND);
      await post(ben, group, { text: 'After the tab vanished' });
      await aMinuteLater();
      expect(service.pushesTo(phone)).toHaveLength(1);
    });

    it('pushes nothing during quiet hours in the user’s time zone, and does not push it later', async () => {
      // 14:00 UTC is 23:00 in Seoul.
      t.clock.set(Date.parse('2026-06-04T14:00:00Z'));
      const ana = await member('Ana', { quiet_hours: '22:00-07:00', time_zone: 'Asia/Seoul' });
      const ben = await member('Ben');
      const group = (await buildGroup(t.ctx, { members: [ana, ben] })).id;
      const phone = await subscribe(ana);
      await post(ben, group, { text: 'At night' });
      await aMinuteLater();
      expect(service.pushesTo(phone)).toEqual([]);
      // 00:00 UTC is 09:00 in Seoul: pushes again, only what is new.
      t.clock.set(Date.parse('2026-06-05T00:00:00Z'));
      await post(ben, group, { text: 'In the morning' });
      await aMinuteLater();
      expect(service.pushesTo(phone).map((p) => phone.read(p).count)).toEqual([1]);
    });

    it('does not push a notification read meanwhile', async () => {
      const ana = await member('Ana');
      const ben = await member('Ben');
      const group = (await buildGroup(t.ctx, { members: [ana, ben] })).id;
      const phone = await subscribe(ana);
      await post(ben, group, { text: 'Read on the laptop' });
      const read = await api.post('/me/notifications/read-all', { key: ana.key, body: {} });
      expect(read.status, read.text).toBe(200);
      await aMinuteLater();
      expect(service.pushesTo(phone)).toEqual([]);
    });

    it('on mentions_replies pushes only comments on the user’s own messages', async () => {
      const ana = await member('Ana', { push_notifications: 'mentions_replies' });
      const ben = await member('Ben');
      const group = (await buildGroup(t.ctx, { name: 'Choir', members: [ana, ben] })).id;
      const phone = await subscribe(ana);
      const anaPost = await post(ana, group, { title: 'Rehearsal', text: 'Tuesday' });
      const benPost = await post(ben, group, { title: 'Concert', text: 'Friday' });
      await post(ben, group, { text: 'On Ben’s own post' }, benPost);
      // Neither Ben's post nor a comment on it starts anything for Ana.
      expect(await pushJobsOf(ana)).toEqual([]);
      const reply = await post(ben, group, { text: 'I will be there' }, anaPost);
      expect(await pushJobsOf(ana)).toHaveLength(1);
      await aMinuteLater();
      const pushes = service.pushesTo(phone);
      expect(pushes).toHaveLength(1);
      expect(phone.read(pushes[0] as never)).toMatchObject({
        body: 'Ben commented on “Rehearsal”',
        url: `/messages/${anaPost}/${reply}`,
        count: 1,
      });
    });

    it('on mentions_replies pushes a mention in someone else’s thread, in the recipient’s language', async () => {
      const ana = await member('Ana', { push_notifications: 'mentions_replies', lang: 'ru_RU' });
      const ben = await member('Ben');
      const group = (await buildGroup(t.ctx, { name: 'Choir', members: [ana, ben] })).id;
      const phone = await subscribe(ana);
      const benPost = await post(ben, group, { title: 'Concert', text: 'Friday' });
      expect(await pushJobsOf(ana)).toEqual([]);
      t.clock.advance(5 * SECOND);
      const res = await api.post('/messages', {
        key: ben.key,
        body: { group, parent: benPost, data: { text: '@Ana can you sing?' }, mentions: [ana.user.id] },
      });
      expect(res.status, res.text).toBe(201);
      expect(await pushJobsOf(ana)).toHaveLength(1);
      await aMinuteLater();
      const pushes = service.pushesTo(phone);
      expect(pushes).toHaveLength(1);
      expect(phone.read(pushes[0] as never)).toMatchObject({
        body: pushText('ru_RU', 'mention', { name: 'Ben', title: 'Concert' }),
        url: `/messages/${benPost}/${res.body.id as string}`,
        lang: 'ru-RU',
        count: 1,
      });
    });

    it('on none pushes nothing and starts no job', async () => {
      const ana = await member('Ana', { push_notifications: 'none' });
      const ben = await member('Ben');
      const group = (await buildGroup(t.ctx, { members: [ana, ben] })).id;
      const phone = await subscribe(ana);
      await post(ben, group, { text: 'Hello' });
      expect(await pushJobsOf(ana)).toEqual([]);
      await aMinuteLater();
      expect(service.pushesTo(phone)).toEqual([]);
    });

    it('starts a push job only for the members a post reaches who have a device', async () => {
      const ana = await member('Ana');
      const ben = await member('Ben');
      const eve = await member('Eve');
      const group = (await buildGroup(t.ctx, { members: [ana, ben, eve] })).id;
      await subscribe(ana);
      await post(ben, group, { text: 'Hello' });
      expect(await pushJobsOf(ana)).toHaveLength(1);
      // Eve has no device: nothing could be pushed to her, and no job is started for her.
      expect(await pushJobsOf(eve)).toEqual([]);
      expect(await pushJobsOf(ben)).toEqual([]);
    });

    it.each([404, 410])('forgets a device the push service no longer knows (%i)', async (status) => {
      const ana = await member('Ana');
      const ben = await member('Ben');
      const group = (await buildGroup(t.ctx, { members: [ana, ben] })).id;
      const gone = await subscribe(ana);
      const kept = await subscribe(ana);
      service.answer(gone, status);
      await post(ben, group, { text: 'Hello' });
      await aMinuteLater();
      expect(service.pushesTo(gone)).toHaveLength(1);
      expect(service.pushesTo(kept)).toHaveLength(1);
      const list = (await api.get('/me/push-subscriptions', { key: ana.key })).body.subscriptions as {
        endpoint: string;
      }[];
      expect(list.map((s) => s.endpoint)).toEqual([kept.endpoint]);
    });

    it('tries a busy push service again (503), gives up a refused push (400), and keeps both devices', async () => {
      const ana = await member('Ana');
      const ben = await member('Ben');
      const group = (await buildGroup(t.ctx, { members: [ana, ben] })).id;
      const busy = await subscribe(ana);
      const refusing = await subscribe(ana);
      service.answer(busy, 503);
      service.answer(refusing, 400);
      await post(ben, group, { text: 'Hello' });
      await aMinuteLater();
      expect(service.pushesTo(busy)).toHaveLength(1);
      expect(service.pushesTo(refusing)).toHaveLength(1);
      service.answer(busy, 201);
      service.answer(refusing, 201);
      t.clock.advance(10 * MINUTE);
      await t.ctx.jobs.drain();
      // The busy one got the push on the second try; the refused one is not tried again.
      expect(service.pushesTo(busy)).toHaveLength(2);
      expect(service.pushesTo(refusing)).toHaveLength(1);
      expect((await api.get('/me/push-subscriptions', { key: ana.key })).body.subscriptions).toHaveLength(2);
    });

    it('pushes a reaction to the author, opening the message', async () => {
      const ana = await member('Ana', { lang: 'fr_FR' });
      const ben = await member('Ben');
      const group = (await buildGroup(t.ctx, { name: 'Famille', members: [ana, ben] })).id;
      const phone = await subscribe(ana);
      const photo = await post(ana, group, { title: 'La plage', text: 'Août' });
      t.clock.advance(SECOND);
      const res = await api.post(`/messages/${photo}/reactions`, { key: ben.key, body: { reaction: '👍' } });
      expect(res.status, res.text).toBe(200);
      await aMinuteLater();
      const [push] = service.pushesTo(phone);
      if (push === undefined) throw new Error('no push');
      expect(phone.read(push)).toEqual({
        title: 'Famille',
        body: 'Ben a réagi à votre message « La plage »',
        url: `/messages/${photo}`,
        tag: `kith-${photo}`,
        lang: 'fr-FR',
        count: 1,
      });
    });

    it('a push service that hangs never delays a request: the push times out and is tried again later', async () => {
      const ana = await member('Ana');
      const ben = await member('Ben');
      const group = (await buildGroup(t.ctx, { members: [ana, ben] })).id;
      const phone = await subscribe(ana);
      service.answer(phone, 'hang');
      const saved = pushLimits.timeoutMs;
      pushLimits.timeoutMs = 200;
      try {
        // The request only records the job: it answers whatever the push service does.
        await post(ben, group, { text: 'Hello' });
        await aMinuteLater();
        expect(service.pushesTo(phone)).toHaveLength(1);
        const [device] = (await api.get('/me/push-subscriptions', { key: ana.key })).body.subscriptions;
        expect(device.lastPushAt).toBeNull();
      } finally {
        pushLimits.timeoutMs = saved;
      }
      service.answer(phone, 201);
      t.clock.advance(10 * MINUTE);
      await t.ctx.jobs.drain();
      const pushes = service.pushesTo(phone);
      expect(pushes).toHaveLength(2);
      expect(phone.read(pushes[1] as never).body).toBe('Ben posted “Hello”');
      const [device] = (await api.get('/me/push-subscriptions', { key: ana.key })).body.subscriptions;
      expect(device.lastPushAt).toBe(Math.floor(t.clock.now() / 1000));
    });
  });
});

describe('Web Push without the loopback switch, or turned off', () => {
  const service = new PushServiceStandIn();
  let t: TestApp;
  let api: ApiClient;
  let off: TestApp;

  beforeAll(async () => {
    await service.start();
    t = await createTestApp({ TIME_ZONE: 'UTC' });
    api = new ApiClient(t.app);
    off = await createTestApp({ PUSH_ENABLED: 'false' });
  });
  afterAll(async () => {
    await t.close();
    await off.close();
    await service.stop();
  });

  it('refuses a loopback endpoint, over http or https', async () => {
    const ana = await buildUser(t.ctx);
    const device = service.device();
    expectError(
      await api.post('/me/push-subscriptions', { key: ana.key, body: device.subscription() }),
      400,
      'invalid_push_subscription',
      'endpoint',
    );
    const https = { ...device.subscription(), endpoint: 'https://127.0.0.1/push/abc' };
    expectError(
      await api.post('/me/push-subscriptions', { key: ana.key, body: https }),
      400,
      'invalid_push_subscription',
    );
    const localhost = { ...device.subscription(), endpoint: 'https://localhost/push/abc' };
    expectError(
      await api.post('/me/push-subscriptions', { key: ana.key, body: localhost }),
      400,
      'invalid_push_subscription',
    );
  });

  it('checks the endpoint again at each send: one that now points at loopback is not called', async () => {
    const ana = await buildUser(t.ctx);
    const ben = await buildUser(t.ctx);
    const group = (await buildGroup(t.ctx, { members: [ana, ben] })).id;
    const device = service.device();
    // As if its name had resolved to a public address when it subscribed, and to loopback now.
    const { endpoint, keys } = device.subscription();
    await t.ctx.db.kysely
      .insertInto('push_subscriptions')
      .values({
        id: '0b6f3c1e-5a7d-4c2b-9e8f-1a2b3c4d5e6f',
        user_id: ana.user.id,
        endpoint,
        ...keys,
        label: '',
        created_at: t.clock.now(),
        last_push_at: null,
      })
      .execute();
    await t.ctx.db.kysely.updateTable('users').set({ push_cursor: 0 }).where('id', '=', ana.user.id).execute();
    t.clock.advance(SECOND);
    const res = await api.post('/messages', { key: ben.key, body: { group, data: { text: 'Hello' } } });
    expect(res.status).toBe(201);
    t.clock.advance(MINUTE);
    await t.ctx.jobs.drain();
    expect(service.received).toEqual([]);
    const row = await t.ctx.db.kysely
      .selectFrom('jobs')
      .select(['status', 'last_error'])
      .where('name', '=', 'send-push')
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('failed');
    expect(row.last_error).toContain('push endpoint refused');
  });

  it('with PUSH_ENABLED=false says so in /api/info and refuses devices with 403', async () => {
    const offApi = new ApiClient(off.app);
    expect((await offApi.get('/info')).body.push).toBe(false);
    const ana = await buildUser(off.ctx);
    expectError(
      await offApi.post('/me/push-subscriptions', { key: ana.key, body: service.device().subscription() }),
      403,
      'feature_disabled',
    );
  });
});
