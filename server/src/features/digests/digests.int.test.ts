import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { expectError } from '../../../test/expect.js';
import { buildGroup, buildUser, reloadUser, type BuiltUser } from '../../../test/factories.js';
import { createTestApp, TEST_DIALECT, type TestApp } from '../../../test/harness.js';
import { uploadFile } from '../../../test/uploads.js';
import { openDatabase } from '../../db/database.js';
import type { Mail } from '../../mail/mailer.js';
import { mailTexts } from '../../mail/texts.js';
import { closeContext, createContext } from '../../setup.js';
import { runDigestSchedule } from './service.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ZONE = { TIME_ZONE: 'Europe/Paris' };

/** Paris is UTC+1 in winter: 07:00 there is 06:00Z. */
const at = (iso: string) => Date.parse(iso);

/** Posts through the API; each post is a minute after the one before (digests list newest first). */
async function post(t: TestApp, api: ApiClient, author: BuiltUser, group: string, data: object, extra: object = {}) {
  t.clock.advance(MINUTE);
  const res = await api.post('/messages', { key: author.key, body: { group, data, ...extra } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** Runs the schedule at the current test time, then every job it queued (digests, then mails). */
async function runSchedule(t: TestApp) {
  const started = await runDigestSchedule(t.ctx);
  await t.ctx.jobs.drain();
  return started;
}

const digestsTo = (t: TestApp, user: BuiltUser): Mail[] =>
  t.mailer.sent.filter((m) => m.kind === 'digest' && m.to === user.user.login);

/** The links of a digest's text part, in order. */
const linksOf = (mail: Mail) => [...mail.text.matchAll(/http:\/\/kith\.test\/messages\/[^\s]+/g)].map((m) => m[0]);

describe('daily digest (§10.8)', () => {
  let t: TestApp;
  let api: ApiClient;
  let ana: BuiltUser;
  let ben: BuiltUser;
  let cleo: BuiltUser;
  let family: string;
  let club: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp(ZONE);
    api = new ApiClient(t.app);
    // Monday 2 March 2026, 06:30 in Paris.
    t.clock.set(at('2026-03-02T05:30:00Z'));
    expect(await runSchedule(t)).toEqual([]); // the schedule starts now; nothing is owed
    ana = await buildUser(t.ctx, { name: 'Ana', notificationEmails: 'daily' });
    ben = await buildUser(t.ctx, { name: 'Ben' });
    cleo = await buildUser(t.ctx, { name: 'Cléo', notificationEmails: 'daily' });
    family = (await buildGroup(t.ctx, { name: 'Family & <friends>', members: [ana, ben] })).id;
    club = (await buildGroup(t.ctx, { name: 'Chess club', members: [ana, cleo] })).id;
  });
  afterAll(() => t.close());

  it('sends nothing before 07:00', async () => {
    const photo = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#3a7' } })
      .jpeg()
      .toBuffer();
    const upload = await uploadFile(t, ben.key, photo);
    expect(upload.status).toBe(201);
    ids.photo = upload.body.id as string;
    ids.beach = await post(t, api, ben, family, { title: 'Beach day', text: 'Sun!' }, { files: [ids.photo] });
    ids.anaPost = await post(t, api, ana, family, { title: 'Dinner on Sunday?', text: 'Who comes?' });
    ids.comment = await post(t, api, ben, family, { text: 'I do' }, { parent: ids.anaPost });
    ids.untitled = await post(t, api, cleo, club, { text: 'Tournament results are in, well played everyone' });
    ids.read = await post(t, api, cleo, club, { title: 'Already read' });
    // Ana reads one of them in the app: it stays out of the digest.
    const list = await api.get('/me/notifications', { key: ana.key });
    const readOne = (list.body as { id: string; target: string }[]).find((n) => n.target === ids.read);
    expect(readOne).toBeDefined();
    expect((await api.put(`/notifications/${readOne?.id}`, { key: ana.key, body: { read: true } })).status).toBe(200);

    t.clock.set(at('2026-03-02T05:59:59Z'));
    expect(await runSchedule(t)).toEqual([]);
    expect(digestsTo(t, ana)).toEqual([]);
  });

  it('sends one digest at 07:00 with the unread posts and comments, grouped by group, linked', async () => {
    t.clock.set(at('2026-03-02T06:00:00Z'));
    // A Monday: the weekly run starts too (nobody here is weekly).
    expect(await runSchedule(t)).toEqual(['hourly', 'daily', 'weekly']);
    const [mail, ...more] = digestsTo(t, ana);
    expect(more).toEqual([]);
    if (mail === undefined) throw new Error('no digest');
    // Her own post is not news to her; Ben's comment on it is.
    expect(mail.subject).toBe('3 new messages in your groups');
    // Groups in the order of their newest item, items newest first.
    expect(mail.text.indexOf('== Chess club ==')).toBeLessThan(mail.text.indexOf('== Family & <friends> =='));
    expect(linksOf(mail)).toEqual([
      `http://kith.test/messages/${ids.untitled}`,
      `http://kith.test/messages/${ids.anaPost}/${ids.comment}`,
      `http://kith.test/messages/${ids.beach}`,
    ]);
    expect(mail.text).toContain('Beach day');
    expect(mail.text).toContain('New post by Ben');
    expect(mail.text).toContain('New comment by Ben');
    expect(mail.text).toContain('Tournament results are in');
    expect(mail.text).not.toContain('Already read');
    expect(mail.html).toContain('Family &amp; &lt;friends&gt;');
    expect(mail.html).not.toContain('<friends>');
    // Cléo posted both Club messages herself: nothing for her.
    expect(digestsTo(t, cleo)).toEqual([]);
    expect(mail.headers?.['List-Unsubscribe']).toMatch(
      new RegExp(`^<http://kith\\.test/api/stop-notification-emails/${ana.user.id}/\\d+\\.[\\w-]{43}>$`),
    );
    expect(mail.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
  });

  it('shows the photo through a signed URL that loads without a login, and only that picture', async () => {
    const mail = digestsTo(t, ana)[0];
    const src = /<img src="([^"]+)"/.exec(mail?.html ?? '')?.[1]?.replace(/&amp;/g, '&');
    expect(src).toMatch(new RegExp(`^http://kith\\.test/api/images/crop/160/160/${ids.photo}\\?exp=\\d+&sig=`));
    const url = (src ?? '').slice('http://kith.test'.length);
    const picture = await t.app.inject({ method: 'GET', url });
    expect(picture.statusCode).toBe(200);
    expect(picture.headers['content-type']).toBe('image/jpeg');
    const meta = await sharp(picture.rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([160, 160]);
    // The signature opens that size of that file only.
    const other = await t.app.inject({ method: 'GET', url: url.replace('/crop/160/160/', '/crop/200/200/') });
    expect(other.statusCode).toBe(404);
    // Change the signature's first character to another one (a fixed 'A' left 1 in 64 URLs intact).
    const tampered = await t.app.inject({
      method: 'GET',
      url: url.replace(/sig=(.)/, (_match, first: string) => `sig=${first === 'A' ? 'B' : 'A'}`),
    });
    expect(tampered.statusCode).toBe(404);
    // After 30 days the mail shows no picture any more.
    const later = t.clock.now();
    t.clock.advance(31 * DAY);
    const expired = await t.app.inject({ method: 'GET', url });
    expectError({ status: expired.statusCode, headers: expired.headers, text: expired.body }, 403, 'url_expired');
    t.clock.set(later);
  });

  it('does not send again in the same run or later the same day', async () => {
    const before = t.mailer.sent.length;
    t.clock.set(at('2026-03-02T06:05:00Z'));
    expect(await runSchedule(t)).toEqual([]);
    t.clock.set(at('2026-03-02T09:00:00Z'));
    expect(await runSchedule(t)).toEqual(['hourly']);
    expect(t.mailer.sent.length).toBe(before);
  });

  it('lists only what came since the last digest the next morning, and nothing when nothing is new', async () => {
    t.clock.set(at('2026-03-02T15:00:00Z'));
    ids.next = await post(t, api, ben, family, { title: 'Photos from the beach' });
    t.clock.set(at('2026-03-03T06:00:00Z'));
    expect(await runSchedule(t)).toContain('daily');
    const digests = digestsTo(t, ana);
    expect(digests).toHaveLength(2);
    expect(digests[1]?.subject).toBe('1 new message in your groups');
    expect(linksOf(digests[1] as Mail)).toEqual([`http://kith.test/messages/${ids.next}`]);

    t.clock.set(at('2026-03-04T06:00:00Z'));
    expect(await runSchedule(t)).toContain('daily');
    expect(digestsTo(t, ana)).toHaveLength(2);
  });

  it('leaves out a message deleted before the digest', async () => {
    t.clock.set(at('2026-03-04T10:00:00Z'));
    const gone = await post(t, api, ben, family, { title: 'Oops, wrong group' });
    expect((await api.delete(`/messages/${gone}`, { key: ben.key })).status).toBe(204);
    t.clock.set(at('2026-03-05T06:00:00Z'));
    await runSchedule(t);
    expect(digestsTo(t, ana)).toHaveLength(2);
  });
});

describe('hourly, weekly and monthly schedules (§10.8)', () => {
  let t: TestApp;
  let api: ApiClient;
  const users: Record<string, BuiltUser> = {};
  let poster: BuiltUser;
  let group: string;

  beforeAll(async () => {
    t = await createTestApp(ZONE);
    api = new ApiClient(t.app);
    // Friday 30 January 2026, 10:30 in Paris.
    t.clock.set(at('2026-01-30T09:30:00Z'));
    await runSchedule(t);
    for (const frequency of ['hourly', 'weekly', 'monthly'] as const) {
      users[frequency] = await buildUser(t.ctx, { name: frequency, notificationEmails: frequency });
    }
    poster = await buildUser(t.ctx, { name: 'Poster' });
    group = (await buildGroup(t.ctx, { members: [poster, ...Object.values(users)] })).id;
    await post(t, api, poster, group, { title: 'Weekend plans' });
  });
  afterAll(() => t.close());

  const count = (frequency: string) => digestsTo(t, users[frequency] as BuiltUser).length;

  it('sends the hourly digest at minute 0 of the next hour, and only it', async () => {
    t.clock.set(at('2026-01-30T09:59:00Z'));
    await runSchedule(t);
    expect([count('hourly'), count('weekly'), count('monthly')]).toEqual([0, 0, 0]);
    t.clock.set(at('2026-01-30T10:00:00Z'));
    expect(await runSchedule(t)).toEqual(['hourly']);
    expect([count('hourly'), count('weekly'), count('monthly')]).toEqual([1, 0, 0]);
  });

  it('sends the monthly digest on the 1st at 07:00', async () => {
    t.clock.set(at('2026-02-01T05:59:00Z'));
    await runSchedule(t);
    expect(count('monthly')).toBe(0);
    t.clock.set(at('2026-02-01T06:00:00Z'));
    expect(await runSchedule(t)).toEqual(['hourly', 'daily', 'monthly']);
    expect([count('hourly'), count('weekly'), count('monthly')]).toEqual([1, 0, 1]);
  });

  it('sends the weekly digest on Monday at 07:00', async () => {
    // Sunday 1 February 2026 was the 1st; Monday is the 2nd.
    t.clock.set(at('2026-02-02T05:59:00Z'));
    await runSchedule(t);
    expect(count('weekly')).toBe(0);
    t.clock.set(at('2026-02-02T06:00:00Z'));
    expect(await runSchedule(t)).toEqual(['hourly', 'daily', 'weekly']);
    expect([count('hourly'), count('weekly'), count('monthly')]).toEqual([1, 1, 1]);
  });
});

describe('restart safety and several processes (§10.8)', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await createTestApp(ZONE);
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  it('sends a digest missed while the server was down once, when it is back', async () => {
    t.clock.set(at('2026-03-10T05:00:00Z'));
    await runSchedule(t);
    const dan = await buildUser(t.ctx, { notificationEmails: 'daily' });
    const eve = await buildUser(t.ctx);
    const group = (await buildGroup(t.ctx, { members: [dan, eve] })).id;
    await post(t, api, eve, group, { title: 'Before the outage' });
    // Down from 06:00 until two days later at 09:30: three 07:00 runs were missed.
    t.clock.set(at('2026-03-12T08:30:00Z'));
    expect(await runSchedule(t)).toEqual(['hourly', 'daily']);
    expect(digestsTo(t, dan)).toHaveLength(1);
    expect(await runSchedule(t)).toEqual([]);
    expect(digestsTo(t, dan)).toHaveLength(1);
  });

  it('lets only one of two processes sharing the database start a run', async () => {
    const mailer = { sent: [] as Mail[], send: (mail: Mail) => Promise.resolve(void mailer.sent.push(mail)) };
    const second = await createContext(t.config, {
      db: openDatabase(t.config.database),
      clock: t.clock,
      mailer,
      log: t.ctx.log as never,
    });
    try {
      const fay = await buildUser(t.ctx, { notificationEmails: 'daily' });
      const gus = await buildUser(t.ctx);
      const group = (await buildGroup(t.ctx, { members: [fay, gus] })).id;
      await post(t, api, gus, group, { title: 'Shared database' });
      t.clock.set(at('2026-03-13T06:00:00Z'));
      // On PostgreSQL the two claims really race; SQLite is one process's database, so in turn.
      const runs =
        TEST_DIALECT === 'postgres'
          ? await Promise.all([runDigestSchedule(t.ctx), runDigestSchedule(second)])
          : [await runDigestSchedule(t.ctx), await runDigestSchedule(second)];
      expect(runs.flat().sort()).toEqual(['daily', 'hourly']);
      // Either runner may hold the job; each drains what it can claim.
      for (const queue of [second.jobs, t.ctx.jobs, second.jobs]) await queue.drain();
      const toFay = [...t.mailer.sent, ...mailer.sent].filter((m) => m.kind === 'digest' && m.to === fay.user.login);
      expect(toFay).toHaveLength(1);
    } finally {
      await second.jobs.stop();
      await closeContext(second);
    }
  });
});

describe('unsubscribing (§3.6)', () => {
  let t: TestApp;
  let api: ApiClient;
  let poster: BuiltUser;
  let group: string;

  beforeAll(async () => {
    t = await createTestApp(ZONE);
    api = new ApiClient(t.app);
    t.clock.set(at('2026-04-01T03:30:00Z'));
    await runSchedule(t);
    poster = await buildUser(t.ctx);
    group = (await buildGroup(t.ctx, { members: [poster] })).id;
  });
  afterAll(() => t.close());

  /** A user on hourly digests who has received one; answers the mail. */
  async function digestFor(name: string): Promise<{ user: BuiltUser; mail: Mail }> {
    const user = await buildUser(t.ctx, { name, notificationEmails: 'hourly' });
    await api.post(`/groups/invitation/${(await groupKey()) ?? ''}`, { key: user.key, body: {} });
    await post(t, api, poster, group, { title: `Hello ${name}` });
    t.clock.advance(HOUR);
    await runSchedule(t);
    const mail = digestsTo(t, user).at(-1);
    if (mail === undefined) throw new Error('no digest');
    return { user, mail };
  }
  const groupKey = async () =>
    (await t.ctx.db.kysely.selectFrom('groups').select('secret_key').where('id', '=', group).executeTakeFirst())
      ?.secret_key;

  it('turns e-mails off from the page link of a digest, and no digest follows', async () => {
    const { user, mail } = await digestFor('Hana');
    const page = /http:\/\/kith\.test\/stop-notification-emails\/[^\s]+/.exec(mail.text)?.[0] ?? '';
    expect(page).toContain(`/stop-notification-emails/${user.user.id}/`);
    // The client calls GET /api followed by its own path.
    const res = await api.get(page.slice('http://kith.test'.length));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: user.user.id, data: { notification_emails: 'none' } });
    expect((await reloadUser(t.ctx, user.user.id))?.notification_emails).toBe('none');
    const me = await api.get('/me', { key: user.key });
    expect(me.body.data.notification_emails).toBe('none');

    await post(t, api, poster, group, { title: 'After unsubscribing' });
    t.clock.advance(HOUR);
    await runSchedule(t);
    expect(digestsTo(t, user)).toHaveLength(1);
  });

  it('answers the one-click POST of a mail program without a login (RFC 8058)', async () => {
    const { user, mail } = await digestFor('Ivo');
    const target = /^<(.+)>$/.exec(mail.headers?.['List-Unsubscribe'] ?? '')?.[1] ?? '';
    const res = await t.app.inject({
      method: 'POST',
      url: target.slice('http://kith.test'.length),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ id: user.user.id, data: { notification_emails: 'none' } });
    expect((await reloadUser(t.ctx, user.user.id))?.notification_emails).toBe('none');
  });

  it('refuses bad, foreign and expired tokens alike and changes nothing', async () => {
    const { user, mail } = await digestFor('Jon');
    const other = await buildUser(t.ctx, { notificationEmails: 'daily' });
    const token = /stop-notification-emails\/[^/]+\/([^\s>]+)/.exec(mail.text)?.[1] ?? '';
    const ip = '203.0.113.50';
    for (const url of [
      `/stop-notification-emails/${other.user.id}/${token}`,
      `/stop-notification-emails/${user.user.id}/${token.slice(0, -2)}xx`,
      `/stop-notification-emails/${user.user.id}/not-a-token`,
      `/stop-notification-emails/00000000-0000-4000-8000-000000000000/${token}`,
      `/stop-notification-emails/not-an-id/${token}`,
    ]) {
      expectError(await api.get(url, { ip }), 400, 'invalid_token');
    }
    t.clock.advance(91 * DAY);
    expectError(await api.get(`/stop-notification-emails/${user.user.id}/${token}`, { ip }), 400, 'invalid_token');
    expect((await reloadUser(t.ctx, user.user.id))?.notification_emails).toBe('hourly');
    expect((await reloadUser(t.ctx, other.user.id))?.notification_emails).toBe('daily');
  });

  it('throttles an address after 20 bad tokens in an hour', async () => {
    const ip = '203.0.113.51';
    for (let i = 0; i < 20; i++) {
      expectError(
        await api.post(`/stop-notification-emails/${poster.user.id}/1.bad${i}`, { ip }),
        400,
        'invalid_token',
      );
    }
    expectError(await api.get(`/stop-notification-emails/${poster.user.id}/1.bad`, { ip }), 429, 'too_many_requests');
    expectError(
      await api.get(`/stop-notification-emails/${poster.user.id}/1.bad`, { ip: '203.0.113.52' }),
      400,
      'invalid_token',
    );
  });

  it('serves the bare path for the logged-in caller (the 0.5.6 client)', async () => {
    const kim = await buildUser(t.ctx, { notificationEmails: 'weekly' });
    expectError(await api.get('/stop-notification-emails'), 401, 'auth_required');
    const res = await api.get('/stop-notification-emails', { key: kim.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: kim.user.id, data: { notification_emails: 'none' } });
    expect((await reloadUser(t.ctx, kim.user.id))?.notification_emails).toBe('none');
  });
});

describe('digest language and disabled e-mail', () => {
  it('writes the digest in the recipient’s language', async () => {
    const t = await createTestApp(ZONE);
    try {
      const api = new ApiClient(t.app);
      t.clock.set(at('2026-05-04T03:30:00Z'));
      await runSchedule(t);
      const lea = await buildUser(t.ctx, { name: 'Léa', notificationEmails: 'hourly' });
      expect((await api.put(`/users/${lea.user.id}`, { key: lea.key, body: { data: { lang: 'fr_FR' } } })).status).toBe(
        200,
      );
      const max = await buildUser(t.ctx);
      const group = (await buildGroup(t.ctx, { members: [lea, max] })).id;
      await post(t, api, max, group, { title: 'Un' });
      await post(t, api, max, group, { title: 'Deux' });
      t.clock.advance(HOUR);
      await runSchedule(t);
      const [mail] = digestsTo(t, lea);
      expect(mail?.subject).toBe(String(mailTexts('fr_FR')['digest_subject_other']).replace('{{count}}', '2'));
      expect(mail?.html).toContain('<html lang="fr-FR">');
      expect(mail?.text).toContain(mailTexts('fr_FR')['digest_unsubscribe']);
    } finally {
      await t.close();
    }
  });

  it('starts no run and queues nothing when the instance sends no e-mail', async () => {
    const t = await createTestApp({ ...ZONE, ALLOW_EMAIL: 'false' });
    try {
      const api = new ApiClient(t.app);
      t.clock.set(at('2026-05-04T03:30:00Z'));
      await runSchedule(t);
      const ned = await buildUser(t.ctx, { notificationEmails: 'hourly' });
      const oli = await buildUser(t.ctx);
      const group = (await buildGroup(t.ctx, { members: [ned, oli] })).id;
      await post(t, api, oli, group, { title: 'Quiet' });
      t.clock.advance(HOUR);
      expect(await runSchedule(t)).toEqual([]);
      expect(t.mailer.sent).toEqual([]);
      const jobs = await t.ctx.db.kysely.selectFrom('jobs').select('name').execute();
      expect(jobs.filter((j) => j.name !== 'process-video')).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
