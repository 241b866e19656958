import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { expectError } from '../../../test/expect.js';
import { buildGroup, buildUser, reloadUser, type BuiltUser } from '../../../test/factories.js';
import { createTestApp, type TestApp } from '../../../test/harness.js';
import { LoopbackSmtp, type Received } from '../../../test/loopback-smtp.js';
import { createMailTestApp, mailsFor } from '../../../test/mail-app.js';
import { openDatabase } from '../../db/database.js';
import { mailTexts } from '../../mail/texts.js';
import { closeContext, createContext } from '../../setup.js';
import { runDigestSchedule } from './service.js';

/**
 * Immediate notification e-mails (docs/api §10.8, issue 20): the app's own SMTP transport against
 * an SMTP server on loopback. The job queue is driven by the tests (`drain` runs what is due on the
 * test clock), so "later" is a clock moved by hand and nothing waits on time.
 */

const SECOND = 1000;
const DELAY = 120 * SECOND;

const fill = (text: string, count: number) => text.replace('{{count}}', String(count));
const header = (mail: ParsedMail, name: string) =>
  (mail.headerLines.find((h) => h.key === name)?.line ?? '').replace(/^[^:]+:\s*/, '');
/** The message links of a mail's text part, in order. */
const linksOf = (mail: ParsedMail) =>
  [...(mail.text ?? '').matchAll(/http:\/\/kith\.test\/messages\/[^\s]+/g)].map((m) => m[0]);

describe('immediate e-mails on SMTP (§10.8)', () => {
  const smtp = new LoopbackSmtp();
  let t: TestApp;
  let api: ApiClient;
  let ana: BuiltUser;
  let ben: BuiltUser;
  let cleo: BuiltUser;
  let group: string;
  let anaPost: string;

  beforeAll(async () => {
    t = await createMailTestApp(smtp, { IMMEDIATE_MAIL_DELAY_SECONDS: String(DELAY / SECOND) });
    api = new ApiClient(t.app);
    ana = await buildUser(t.ctx, { name: 'Ana', login: 'ana.now@example.org', notificationEmails: 'immediately' });
    ben = await buildUser(t.ctx, { name: 'Ben', login: 'ben.now@example.org' });
    cleo = await buildUser(t.ctx, { name: 'Cléo', login: 'cleo.now@example.org', notificationEmails: 'none' });
    group = (await buildGroup(t.ctx, { name: 'Garden', members: [ana, ben, cleo] })).id;
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  const mailsTo = (user: BuiltUser): Received[] => mailsFor(smtp, user);

  /** The `send-immediate-mail` jobs of a user, oldest first. */
  const jobsOf = (user: BuiltUser) =>
    t.ctx.db.kysely
      .selectFrom('jobs')
      .select(['status', 'run_after'])
      .where('name', '=', 'send-immediate-mail')
      .where('payload', '=', JSON.stringify({ userId: user.user.id }))
      .orderBy('created_at')
      .execute()
      .then((rows) => rows.map((r) => ({ status: r.status, runAfter: Number(r.run_after) })));

  /** Posts through the API, a few seconds after the previous post (mails list newest first). */
  async function post(author: BuiltUser, data: object, parent?: string): Promise<string> {
    t.clock.advance(7 * SECOND);
    const res = await api.post('/messages', {
      key: author.key,
      body: { group, data, ...(parent === undefined ? {} : { parent }) },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  it('queues nothing for the author of a post, nor for a member on none', async () => {
    anaPost = await post(ana, { title: 'Tomatoes are ripe', text: 'Come and pick some.' });
    await t.ctx.jobs.drain();
    expect(await jobsOf(ana)).toEqual([]);
    expect(await jobsOf(cleo)).toEqual([]);
    expect(mailsTo(ana)).toEqual([]);
  });

  const burst: string[] = [];
  let firstAt = 0;

  it('makes one waiting job of a burst of 5 comments, due the delay after the first', async () => {
    for (let i = 0; i < 5; i++) {
      burst.push(await post(i % 2 === 0 ? ben : cleo, { text: `Comment number ${i + 1}` }, anaPost));
      if (i === 0) firstAt = t.clock.now();
    }
    expect(await jobsOf(ana)).toEqual([{ status: 'queued', runAfter: firstAt + DELAY }]);
    // Before the delay has passed the job is not due: draining the queue sends nothing.
    t.clock.set(firstAt + DELAY - 1);
    await t.ctx.jobs.drain();
    expect(mailsTo(ana)).toEqual([]);
    expect(await jobsOf(ana)).toEqual([{ status: 'queued', runAfter: firstAt + DELAY }]);
    // Nothing for the commenters: Ben is on none (the default), Cléo chose none.
    expect(await jobsOf(ben)).toEqual([]);
    expect(await jobsOf(cleo)).toEqual([]);
  });

  it('sends exactly one mail with all 5 comments once the delay has passed', async () => {
    t.clock.set(firstAt + DELAY);
    await t.ctx.jobs.drain();
    expect(await jobsOf(ana)).toEqual([{ status: 'done', runAfter: firstAt + DELAY }]);
    const [mail, ...more] = mailsTo(ana);
    expect(more).toEqual([]);
    if (mail === undefined) throw new Error('no mail');
    expect(mail.parsed.subject).toBe(fill(String(mailTexts('en_US')['immediate_subject_other']), 5));
    expect(mail.parsed.subject).toBe('Just now: 5 new messages in your groups');
    expect(mail.parsed.text).toContain(mailTexts('en_US')['immediate_intro']);
    expect(linksOf(mail.parsed)).toEqual(
      [...burst].reverse().map((id) => `http://kith.test/messages/${anaPost}/${id}`),
    );
    expect(mail.parsed.text).toContain('New comment by Ben');
    expect(mail.parsed.text).toContain('New comment by Cléo');
    expect(mail.parsed.text).toContain('immediately');
    // Nothing is left to send: another drain sends no second mail, and no job waits.
    await t.ctx.jobs.drain();
    expect(mailsTo(ana)).toHaveLength(1);
    expect((await jobsOf(ana)).filter((j) => j.status !== 'done')).toEqual([]);
  });

  it('starts a new window with activity after the mail, and mails only the new activity', async () => {
    const second = [await post(ben, { text: 'One more thing' }, anaPost)];
    const startedAt = t.clock.now();
    second.push(await post(ben, { title: 'Seeds to share' }));
    const jobs = await jobsOf(ana);
    expect(jobs).toHaveLength(2);
    expect(jobs[1]).toEqual({ status: 'queued', runAfter: startedAt + DELAY });
    t.clock.set(startedAt + DELAY);
    await t.ctx.jobs.drain();
    const mails = mailsTo(ana);
    expect(mails).toHaveLength(2);
    const mail = mails[1]?.parsed as ParsedMail;
    expect(mail.subject).toBe('Just now: 2 new messages in your groups');
    expect(linksOf(mail)).toEqual([
      `http://kith.test/messages/${second[1]}`,
      `http://kith.test/messages/${anaPost}/${second[0]}`,
    ]);
  });

  it('never mails a notification twice: a second run of the job finds nothing to send', async () => {
    // As a retry of a run that had committed, or a job recorded twice by two processes at once.
    await post(ben, { text: 'Last word' }, anaPost);
    const id = await t.ctx.jobs.enqueue(t.ctx.db.kysely, 'send-immediate-mail', { userId: ana.user.id });
    expect((await jobsOf(ana)).filter((j) => j.status === 'queued')).toHaveLength(2);
    t.clock.advance(DELAY);
    await t.ctx.jobs.drain();
    const done = await t.ctx.db.kysely.selectFrom('jobs').select('status').where('id', '=', id).executeTakeFirst();
    expect(done?.status).toBe('done');
    expect((await jobsOf(ana)).filter((j) => j.status !== 'done')).toEqual([]);
    expect(mailsTo(ana)).toHaveLength(3);
    expect(mailsTo(ana)[2]?.parsed.subject).toBe('Just now: 1 new message in your groups');
  });

  it('carries the unsubscribe link and one-click headers; the POST turns the mails off', async () => {
    const mail = mailsTo(ana)[0]?.parsed as ParsedMail;
    const page = /http:\/\/kith\.test\/stop-notification-emails\/[^\s]+/.exec(mail.text ?? '')?.[0] ?? '';
    expect(page).toContain(`/stop-notification-emails/${ana.user.id}/`);
    expect(mail.text).toContain(mailTexts('en_US')['digest_unsubscribe']);
    const target = /^<(.+)>$/.exec(header(mail, 'list-unsubscribe'))?.[1] ?? '';
    expect(target).toBe(page.replace('http://kith.test/', 'http://kith.test/api/'));
    expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const res = await t.app.inject({
      method: 'POST',
      url: target.slice('http://kith.test'.length),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ id: ana.user.id, data: { notification_emails: 'none' } });
    expect((await reloadUser(t.ctx, ana.user.id))?.notification_emails).toBe('none');

    const before = (await jobsOf(ana)).length;
    await post(ben, { text: 'Are you still there?' }, anaPost);
    expect(await jobsOf(ana)).toHaveLength(before);
    t.clock.advance(DELAY);
    await t.ctx.jobs.drain();
    expect(mailsTo(ana)).toHaveLength(3);
  });

  it('writes the mail in the recipient’s language', async () => {
    const lea = await buildUser(t.ctx, {
      name: 'Léa',
      login: 'lea.now@example.org',
      notificationEmails: 'immediately',
    });
    const put = await api.put(`/users/${lea.user.id}`, { key: lea.key, body: { data: { lang: 'fr_FR' } } });
    expect(put.status).toBe(200);
    const atelier = (await buildGroup(t.ctx, { name: 'Atelier', members: [lea, ben] })).id;
    t.clock.advance(SECOND);
    const res = await api.post('/messages', {
      key: ben.key,
      body: { group: atelier, data: { title: 'Confiture', text: 'Qui en veut ?' } },
    });
    expect(res.status).toBe(201);
    t.clock.advance(DELAY);
    await t.ctx.jobs.drain();
    const [mail, ...more] = mailsTo(lea);
    expect(more).toEqual([]);
    const fr = mailTexts('fr_FR');
    expect(mail?.parsed.subject).toBe(fill(String(fr['immediate_subject_one']), 1));
    expect(mail?.parsed.html).toContain('<html lang="fr-FR">');
    expect(mail?.parsed.text).toContain(fr['immediate_intro']);
    expect(mail?.parsed.text).toContain(fr['digest_unsubscribe']);
    expect(mail?.parsed.text).toContain(fr['frequency_immediately']);
  });

  it('sends nothing to someone who chose another frequency while the mail waited: their digest lists it', async () => {
    const dan = await buildUser(t.ctx, {
      name: 'Dan',
      login: 'dan.now@example.org',
      notificationEmails: 'immediately',
    });
    const club = (await buildGroup(t.ctx, { name: 'Club', members: [dan, ben] })).id;
    t.clock.advance(SECOND);
    expect(
      (await api.post('/messages', { key: ben.key, body: { group: club, data: { title: 'Meeting moved' } } })).status,
    ).toBe(201);
    expect(await jobsOf(dan)).toHaveLength(1);
    const put = await api.put(`/users/${dan.user.id}`, {
      key: dan.key,
      body: { data: { notification_emails: 'hourly' } },
    });
    expect(put.status).toBe(200);
    t.clock.advance(DELAY);
    await t.ctx.jobs.drain();
    expect(await jobsOf(dan)).toEqual([expect.objectContaining({ status: 'done' })]);
    expect(mailsTo(dan)).toEqual([]);
    t.clock.advance(60 * 60 * SECOND);
    await runDigestSchedule(t.ctx);
    await t.ctx.jobs.drain();
    expect(mailsTo(dan).map((m) => m.parsed.subject)).toEqual(['1 new message in your groups']);
  });

  it('leaves out what was read in the app during the wait, and sends nothing when that was all', async () => {
    const gil = await buildUser(t.ctx, {
      name: 'Gil',
      login: 'gil.now@example.org',
      notificationEmails: 'immediately',
    });
    const club = (await buildGroup(t.ctx, { name: 'Band', members: [gil, ben] })).id;
    t.clock.advance(SECOND);
    expect((await api.post('/messages', { key: ben.key, body: { group: club, data: { title: 'Gig' } } })).status).toBe(
      201,
    );
    const list = await api.get('/me/notifications', { key: gil.key });
    const seen = (list.body as { id: string }[])[0];
    expect((await api.put(`/notifications/${seen?.id}`, { key: gil.key, body: { read: true } })).status).toBe(200);
    t.clock.advance(DELAY);
    await t.ctx.jobs.drain();
    expect(await jobsOf(gil)).toEqual([expect.objectContaining({ status: 'done' })]);
    expect(mailsTo(gil)).toEqual([]);
  });

  it('mails what already waited, a delay after someone switches to immediately', async () => {
    const hal = await buildUser(t.ctx, { name: 'Hal', login: 'hal.now@example.org', notificationEmails: 'daily' });
    const club = (await buildGroup(t.ctx, { name: 'Choir', members: [hal, ben] })).id;
    t.clock.advance(SECOND);
    expect(
      (await api.post('/messages', { key: ben.key, body: { group: club, data: { title: 'Rehearsal' } } })).status,
    ).toBe(201);
    expect(await jobsOf(hal)).toEqual([]);
    const put = await api.put(`/users/${hal.user.id}`, {
      key: hal.key,
      body: { data: { notification_emails: 'immediately' } },
    });
    expect(put.status).toBe(200);
    expect(await jobsOf(hal)).toEqual([{ status: 'queued', runAfter: t.clock.now() + DELAY }]);
    // Saving the same choice again starts nothing more.
    expect(
      (await api.put(`/users/${hal.user.id}`, { key: hal.key, body: { data: { notification_emails: 'immediately' } } }))
        .status,
    ).toBe(200);
    expect(await jobsOf(hal)).toHaveLength(1);
    t.clock.advance(DELAY);
    await t.ctx.jobs.drain();
    expect(mailsTo(hal).map((m) => m.parsed.subject)).toEqual(['Just now: 1 new message in your groups']);
  });

  it('starts no job when someone switches to immediately with nothing waiting, so their next burst is one mail', async () => {
    const ida = await buildUser(t.ctx, { name: 'Ida', login: 'ida.now@example.org', notificationEmails: 'none' });
    const club = (await buildGroup(t.ctx, { name: 'Rowing', members: [ida, ben] })).id;
    const put = await api.put(`/users/${ida.user.id}`, {
      key: ida.key,
      body: { data: { notification_emails: 'immediately' } },
    });
    expect(put.status).toBe(200);
    expect(await jobsOf(ida)).toEqual([]);
    // Most of a delay later, a burst starts its own window, from its first post.
    t.clock.advance(DELAY - SECOND);
    for (const title of ['Boat', 'Oars']) {
      const res = await api.post('/messages', { key: ben.key, body: { group: club, data: { title } } });
      expect(res.status).toBe(201);
      t.clock.advance(2 * SECOND);
    }
    expect(await jobsOf(ida)).toEqual([{ status: 'queued', runAfter: t.clock.now() - 4 * SECOND + DELAY }]);
    t.clock.advance(DELAY);
    await t.ctx.jobs.drain();
    expect(mailsTo(ida).map((m) => m.parsed.subject)).toEqual(['Just now: 2 new messages in your groups']);
  });

  it('never mails a reaction: it queues no job, and a later mail does not list it', async () => {
    const ivy = await buildUser(t.ctx, {
      name: 'Ivy',
      login: 'ivy.now@example.org',
      notificationEmails: 'immediately',
    });
    const choir = (await buildGroup(t.ctx, { name: 'Choir', members: [ivy, ben] })).id;
    t.clock.advance(SECOND);
    const mine = await api.post('/messages', {
      key: ivy.key,
      body: { group: choir, data: { text: 'Rehearsal at 7' } },
    });
    expect(mine.status).toBe(201);
    for (const reaction of ['👍', '🎶']) {
      const res = await api.post(`/messages/${mine.body.id}/reactions`, { key: ben.key, body: { reaction } });
      expect(res.status, res.text).toBe(200);
    }
    // Ivy was told in the app, once…
    const listed = await api.get('/me/notifications/50?include=reactions', { key: ivy.key });
    expect(listed.body.map((n: { type: string }) => n.type)).toEqual(['new_reaction']);
    // …and by no mail, now or after the delay.
    expect(await jobsOf(ivy)).toEqual([]);
    t.clock.advance(DELAY);
    await t.ctx.jobs.drain();
    expect(mailsTo(ivy)).toEqual([]);
  });

  it('keeps the waiting mail across a restart: another process sends it, once', async () => {
    const eve = await buildUser(t.ctx, {
      name: 'Eve',
      login: 'eve.now@example.org',
      notificationEmails: 'immediately',
    });
    const club = (await buildGroup(t.ctx, { name: 'Book club', members: [eve, ben] })).id;
    t.clock.advance(SECOND);
    expect(
      (await api.post('/messages', { key: ben.key, body: { group: club, data: { title: 'Next book' } } })).status,
    ).toBe(201);
    expect(await jobsOf(eve)).toEqual([expect.objectContaining({ status: 'queued' })]);
    // This process goes away without running it (a kill leaves the job row as it is); a new one
    // on the same database, with the real SMTP mailer of the configuration, finds it due.
    const restarted = await createContext(t.config, {
      db: openDatabase(t.config.database),
      clock: t.clock,
      log: t.ctx.log as never,
    });
    try {
      t.clock.advance(DELAY);
      await restarted.jobs.drain();
      expect(mailsTo(eve).map((m) => m.parsed.subject)).toEqual(['Just now: 1 new message in your groups']);
      await t.ctx.jobs.drain();
      await restarted.jobs.drain();
      expect(mailsTo(eve)).toHaveLength(1);
    } finally {
      await restarted.jobs.stop();
      await closeContext(restarted);
    }
  });
});

describe('choosing immediate e-mails (§4.3)', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await createTestApp();
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  it('accepts immediately and shows it back', async () => {
    const ana = await buildUser(t.ctx, { notificationEmails: 'daily' });
    const res = await api.put(`/users/${ana.user.id}`, {
      key: ana.key,
      body: { data: { notification_emails: 'immediately' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.notification_emails).toBe('immediately');
    expect((await api.get('/me', { key: ana.key })).body.data.notification_emails).toBe('immediately');
  });

  it.each([['Immediately'], ['immediate'], ['instantly']])('refuses %j and changes nothing', async (value) => {
    const ana = await buildUser(t.ctx, { notificationEmails: 'weekly' });
    expectError(
      await api.put(`/users/${ana.user.id}`, { key: ana.key, body: { data: { notification_emails: value } } }),
      400,
      'invalid_field',
      'data.notification_emails',
    );
    expect((await reloadUser(t.ctx, ana.user.id))?.notification_emails).toBe('weekly');
  });

  it('queues no mail when the instance sends no e-mail', async () => {
    const quiet = await createTestApp({ ALLOW_EMAIL: 'false' });
    try {
      const quietApi = new ApiClient(quiet.app);
      const fay = await buildUser(quiet.ctx, { notificationEmails: 'immediately' });
      const gus = await buildUser(quiet.ctx);
      const group = (await buildGroup(quiet.ctx, { members: [fay, gus] })).id;
      const res = await quietApi.post('/messages', { key: gus.key, body: { group, data: { title: 'Quiet' } } });
      expect(res.status).toBe(201);
      const jobs = await quiet.ctx.db.kysely.selectFrom('jobs').select('name').execute();
      expect(jobs.map((j) => j.name)).not.toContain('send-immediate-mail');
      quiet.clock.advance(DELAY);
      await quiet.ctx.jobs.drain();
      expect(quiet.mailer.sent).toEqual([]);
    } finally {
      await quiet.close();
    }
  });
});
