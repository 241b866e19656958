import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { buildGroup, buildUser, reloadUser, type BuiltUser } from '../../../test/factories.js';
import type { TestApp } from '../../../test/harness.js';
import { LoopbackSmtp, type Received } from '../../../test/loopback-smtp.js';
import { createMailTestApp, mailsFor } from '../../../test/mail-app.js';
import { runDigestSchedule } from './service.js';

/**
 * Mentions by e-mail (issue 21, docs/api §11.10): `data.mention_emails` with_others (the default:
 * in the user's digest or immediate mail), immediately (within the immediate delay whatever the
 * digest frequency, and then only the mentions), none (never mailed). The app's own SMTP transport
 * against a loopback SMTP server; the job queue runs on the test clock, so nothing waits on time.
 */

const SECOND = 1000;
const DELAY = 120 * SECOND;
const DAY = 24 * 3600 * SECOND;

describe('mention e-mails on SMTP (§11.10)', () => {
  const smtp = new LoopbackSmtp();
  let t: TestApp;
  let api: ApiClient;
  let ben: BuiltUser;
  /** Daily digest, mentions with the others. */
  let ana: BuiltUser;
  /** Daily digest, mentions right away. */
  let cleo: BuiltUser;
  /** Immediate mails, mentions never. */
  let dan: BuiltUser;
  /** No mails at all, mentions right away. */
  let eva: BuiltUser;
  let group: string;
  let picnic: string;

  beforeAll(async () => {
    t = await createMailTestApp(smtp, { IMMEDIATE_MAIL_DELAY_SECONDS: String(DELAY / SECOND) });
    api = new ApiClient(t.app);
    ben = await buildUser(t.ctx, { name: 'Ben', login: 'ben.m@example.org' });
    ana = await buildUser(t.ctx, { name: 'Ana', login: 'ana.m@example.org', notificationEmails: 'daily' });
    cleo = await buildUser(t.ctx, { name: 'Cleo', login: 'cleo.m@example.org', notificationEmails: 'daily' });
    dan = await buildUser(t.ctx, { name: 'Dan', login: 'dan.m@example.org', notificationEmails: 'immediately' });
    eva = await buildUser(t.ctx, { name: 'Eva', login: 'eva.m@example.org', notificationEmails: 'none' });
    for (const [u, choice] of [
      [cleo, 'immediately'],
      [dan, 'none'],
      [eva, 'immediately'],
    ] as const) {
      const res = await api.put(`/users/${u.user.id}`, { key: u.key, body: { data: { mention_emails: choice } } });
      expect(res.status, res.text).toBe(200);
    }
    group = (await buildGroup(t.ctx, { name: 'Garden', members: [ben, ana, cleo, dan, eva] })).id;
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  const mailsTo = (user: BuiltUser): Received[] => mailsFor(smtp, user);

  async function post(data: object, mentions: BuiltUser[] = [], parent?: string): Promise<string> {
    t.clock.advance(7 * SECOND);
    const res = await api.post('/messages', {
      key: ben.key,
      body: { group, data, mentions: mentions.map((u) => u.user.id), ...(parent === undefined ? {} : { parent }) },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  }

  it('mails a mention alone within the delay to someone whose digest is daily or off', async () => {
    // A plain post first: it waits for Cléo's daily digest and is not in her mention mail.
    await post({ title: 'Seeds', text: 'Who wants seeds?' });
    picnic = await post({ title: 'Picnic', text: '@Cleo and @Eva, can you bring bread? @Ana @Dan' }, [
      cleo,
      eva,
      ana,
      dan,
    ]);
    t.clock.advance(DELAY);
    await t.ctx.jobs.drain();
    for (const u of [cleo, eva]) {
      const [mail, ...more] = mailsTo(u);
      expect(more).toEqual([]);
      expect(mail?.parsed.subject).toBe('Ben mentioned you in “Picnic”');
      expect(mail?.parsed.text).toContain('Ben mentioned you');
      expect(mail?.parsed.text).toContain(`http://kith.test/messages/${picnic}`);
      expect(mail?.parsed.text).not.toContain('Seeds');
      expect(mail?.parsed.text).toContain('mentions by e-mail right away');
    }
    // Ana (with her others, daily) got nothing yet; Dan (immediately, mentions never) got the plain
    // post only.
    expect(mailsTo(ana)).toEqual([]);
    const [danMail, ...danMore] = mailsTo(dan);
    expect(danMore).toEqual([]);
    expect(danMail?.parsed.subject).toBe('Just now: 1 new message in your groups');
    expect(danMail?.parsed.text).toContain('Seeds');
    expect(danMail?.parsed.text).not.toContain('Picnic');
  });

  it('mails a mention in a reply with its link into the thread', async () => {
    const reply = await post({ text: 'Also @Eva: the blanket' }, [eva], picnic);
    t.clock.advance(DELAY);
    await t.ctx.jobs.drain();
    expect(mailsTo(eva)).toHaveLength(2);
    expect(mailsTo(eva)[1]?.parsed.text).toContain(`http://kith.test/messages/${picnic}/${reply}`);
  });

  it('never mails a mention to someone who chose none, even on immediately', async () => {
    await post({ text: 'Plain news @Dan' }, [dan]);
    await post({ title: 'Plain news' });
    t.clock.advance(DELAY);
    await t.ctx.jobs.drain();
    const mails = mailsTo(dan);
    const last = mails.at(-1)?.parsed;
    expect(last?.subject).toBe('Just now: 1 new message in your groups');
    expect(last?.text).toContain('Plain news');
    for (const mail of mails) expect(mail.parsed.text).not.toContain('mentioned you');
  });

  it('puts a with_others mention in the daily digest, and nothing already mailed in any digest', async () => {
    t.clock.advance(DAY);
    await runDigestSchedule(t.ctx);
    await t.ctx.jobs.drain();
    const [anaDigest] = mailsTo(ana);
    expect(anaDigest?.parsed.text).toContain('Ben mentioned you');
    expect(anaDigest?.parsed.text).toContain('Seeds');
    // Cleo's digest lists the posts, not the mention her own mail already carried.
    const cleoMails = mailsTo(cleo);
    expect(cleoMails).toHaveLength(2);
    expect(cleoMails[1]?.parsed.text).toContain('Seeds');
    expect(cleoMails[1]?.parsed.text).not.toContain('mentioned you');
    // Eva, on none, gets no digest.
    expect(mailsTo(eva)).toHaveLength(2);
  });

  it('the unsubscribe link of a mention mail stops the mention mails too', async () => {
    const mail = mailsTo(eva)[0]?.parsed;
    const page = /http:\/\/kith\.test\/stop-notification-emails\/[^\s]+/.exec(mail?.text ?? '')?.[0] ?? '';
    const res = await t.app.inject({
      method: 'POST',
      url: page.replace('http://kith.test/', '/api/'),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(res.statusCode).toBe(200);
    expect((await reloadUser(t.ctx, eva.user.id))?.mention_emails).toBe('none');
    await post({ text: 'Still there, @Eva?' }, [eva]);
    t.clock.advance(DELAY);
    await t.ctx.jobs.drain();
    expect(mailsTo(eva)).toHaveLength(2);
  });
});
