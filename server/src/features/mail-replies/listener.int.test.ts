import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../test/client.js';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import type { TestApp } from '../../../test/harness.js';
import { LoopbackSmtp, type Received } from '../../../test/loopback-smtp.js';
import { createMailTestApp, mailsFor } from '../../../test/mail-app.js';
import {
  commentsOn,
  composeMail,
  fillFixture,
  REPLY_ENV,
  replyAddressOf,
  replyFixtures,
  sendRaw,
} from '../../../test/reply-mails.js';
import { translator } from '../../mail/texts.js';
import { sendDigest } from '../digests/service.js';
import { startMailListener, type MailListener } from './listener.js';
import { findReplyAddress } from './queries.js';
import { readReplyToken, tokenOfAddress } from './token.js';

/**
 * Reply by e-mail end to end over real SMTP and LMTP (docs/api §11.11): Kith's notification mails
 * leave through its SMTP transport to a loopback server, carry their Reply-To, and a reply written
 * to it reaches the listener through nodemailer's SMTP transport (standing in for the local mail
 * server) and becomes a comment. The job queue is driven by the tests, on the test clock.
 */

const SECOND = 1000;

describe('reply by e-mail over SMTP and LMTP', () => {
  const outgoing = new LoopbackSmtp();
  let t: TestApp;
  let api: ApiClient;
  let smtp: MailListener;
  let lmtp: MailListener;
  let ana: BuiltUser;
  let ben: BuiltUser;
  let group: string;

  beforeAll(async () => {
    t = await createMailTestApp(outgoing, { ...REPLY_ENV, REPLY_MAX_MB: '1', IMMEDIATE_MAIL_DELAY_SECONDS: '60' });
    api = new ApiClient(t.app);
    smtp = await startMailListener(t.ctx, { port: 0, protocol: 'smtp' });
    lmtp = await startMailListener(t.ctx, { port: 0, protocol: 'lmtp' });
    ana = await buildUser(t.ctx, { name: 'Ana', login: 'ana.smtp@example.org', notificationEmails: 'immediately' });
    ben = await buildUser(t.ctx, { name: 'Ben', login: 'ben.smtp@example.org' });
    group = (await buildGroup(t.ctx, { name: 'Family', members: [ana, ben] })).id;
  });
  afterAll(async () => {
    await smtp.close();
    await lmtp.close();
    await t.close();
    await outgoing.stop();
  });

  async function post(text: string): Promise<string> {
    t.clock.advance(5 * SECOND);
    const res = await api.post('/messages', { key: ben.key, body: { group, data: { text } } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  const mailsTo = (user: BuiltUser): Received[] => mailsFor(outgoing, user);
  const replyToOf = (mail: ParsedMail): string => mail.replyTo?.value[0]?.address ?? '';

  /** The user and message a reply address names, read back from its token. */
  async function addressFacts(address: string) {
    const token = tokenOfAddress({ localPart: 'reply' }, address);
    const id = token === null ? null : readReplyToken(t.config.secretKey, token);
    const row = id === null ? undefined : await findReplyAddress(t.ctx.db.kysely, id);
    return { user: row?.user_id, message: row?.message_id };
  }

  it('an immediate mail carries a Reply-To; a reply to it with a photo, over SMTP, becomes a comment', async () => {
    const postId = await post('Beach day tomorrow?');
    t.clock.advance(61 * SECOND);
    await t.ctx.jobs.drain();
    const mail = mailsTo(ana).at(-1)?.parsed;
    expect(mail).toBeDefined();
    if (mail === undefined) return;
    const replyTo = replyToOf(mail);
    expect(replyTo).toMatch(/^reply\+[a-z2-7]{32}@kith\.test$/);
    expect(await addressFacts(replyTo)).toEqual({ user: ana.user.id, message: postId });
    expect(mail.text).toContain(translator('en_US')('reply.hint_single'));

    // Ana's mail program answers with a photo (the Apple Mail fixture), to the Reply-To.
    const photo = replyFixtures().find((f) => f.name === 'kith-photo');
    expect(photo).toBeDefined();
    const raw = fillFixture(photo?.template ?? '', ana.user.login, replyTo);
    const sent = await sendRaw(smtp.port, raw, { from: ana.user.login, to: [replyTo] });
    expect(sent.accepted).toEqual([replyTo]);
    expect(await commentsOn(t.ctx, postId)).toEqual([
      { id: expect.any(String), author: ana.user.id, text: photo?.expected.text, files: 1 },
    ]);
  });

  it('a digest of several messages: Reply-To for the first, a reply link under each', async () => {
    const cleo = await buildUser(t.ctx, { name: 'Cléo', login: 'cleo.smtp@example.org', notificationEmails: 'daily' });
    const shared = (await buildGroup(t.ctx, { members: [ben, cleo] })).id;
    const first = await api.post('/messages', { key: ben.key, body: { group: shared, data: { text: 'Older' } } });
    t.clock.advance(SECOND);
    const second = await api.post('/messages', { key: ben.key, body: { group: shared, data: { text: 'Newer' } } });
    await sendDigest(t.ctx, cleo.user, 'daily');
    await t.ctx.jobs.drain();
    const mail = mailsTo(cleo).at(-1)?.parsed;
    if (mail === undefined) throw new Error('no digest');
    // Newest first: the Reply-To is the newer post's.
    expect(await addressFacts(replyToOf(mail))).toEqual({ user: cleo.user.id, message: second.body.id });
    const links = [...(mail.text ?? '').matchAll(/mailto:([^?\s]+)/g)].map((m) => decodeURIComponent(m[1] ?? ''));
    expect(links).toHaveLength(2);
    expect(await Promise.all(links.map(addressFacts))).toEqual([
      { user: cleo.user.id, message: second.body.id },
      { user: cleo.user.id, message: first.body.id },
    ]);
    expect(mail.text).toContain(translator('en_US')('reply.hint_several'));
    expect(mail.html).toContain(`href="mailto:${links[1]}`);

    // Replying through the older post's link comments on the older post.
    const raw = await composeMail({ from: cleo.user.login, to: links[1], subject: 'Re: Older', text: 'Still true' });
    await sendRaw(smtp.port, raw, { from: cleo.user.login, to: [links[1] ?? ''] });
    expect(await commentsOn(t.ctx, first.body.id as string)).toEqual([
      expect.objectContaining({ author: cleo.user.id, text: 'Still true' }),
    ]);
  });

  it.each(replyFixtures().map((f) => [f.name, f] as const))(
    'fixture %s, sent over SMTP, becomes the expected comment',
    async (_name, fixture) => {
      const postId = await post(`For ${fixture.name}`);
      const to = await replyAddressOf(t.ctx, ana.user.id, postId);
      await sendRaw(smtp.port, fillFixture(fixture.template, ana.user.login, to), {
        from: ana.user.login,
        to: [to],
      });
      expect(await commentsOn(t.ctx, postId)).toEqual([
        { id: expect.any(String), author: ana.user.id, text: fixture.expected.text, files: fixture.expected.photos },
      ]);
    },
  );

  it('refuses, at RCPT TO, an address that is not a reply address', async () => {
    const raw = await composeMail({ from: ana.user.login, to: 'postmaster@kith.test', text: 'Hello' });
    await expect(sendRaw(smtp.port, raw, { from: ana.user.login, to: ['postmaster@kith.test'] })).rejects.toMatchObject(
      { responseCode: 550 },
    );
  });

  it('refuses a mail over the size limit with 552 and keeps nothing', async () => {
    const postId = await post('Big one');
    const to = await replyAddressOf(t.ctx, ana.user.id, postId);
    const raw = await composeMail({
      from: ana.user.login,
      to,
      text: 'Huge',
      attachments: [{ filename: 'big.bin', content: Buffer.alloc(1024 * 1024 + 100, 7) }],
    });
    await expect(sendRaw(smtp.port, raw, { from: ana.user.login, to: [to] })).rejects.toMatchObject({
      responseCode: 552,
    });
    expect(await commentsOn(t.ctx, postId)).toEqual([]);
  });

  it('answers 250 to an auto-reply and to a bounce, which change nothing', async () => {
    const postId = await post('Quiet');
    const to = await replyAddressOf(t.ctx, ana.user.id, postId);
    const before = outgoing.received.length;
    const auto = await composeMail({
      from: ana.user.login,
      to,
      text: 'I am away',
      headers: { 'Auto-Submitted': 'auto-replied' },
    });
    expect((await sendRaw(smtp.port, auto, { from: ana.user.login, to: [to] })).accepted).toEqual([to]);
    const bounce = await composeMail({ from: 'MAILER-DAEMON@example.org', to, text: 'Undeliverable' });
    expect((await sendRaw(smtp.port, bounce, { from: '', to: [to] })).accepted).toEqual([to]);
    expect(await commentsOn(t.ctx, postId)).toEqual([]);
    await t.ctx.jobs.drain();
    // No bounce to either sender. Other mails may leave meanwhile: the immediate mails of earlier
    // tests' posts, due once the clock moved past their delay.
    const bounces = outgoing.received.slice(before).filter((m) => /^X-Kith-Mail: reply-bounce\r?$/m.test(m.raw));
    expect(bounces).toEqual([]);
  });

  it('a bad token over SMTP gets a short bounce through Kith’s mail queue, never answered in turn', async () => {
    const to = `reply+${'a'.repeat(32)}@kith.test`;
    const raw = await composeMail({ from: ana.user.login, to, subject: 'Re: ?', text: 'Hello?' });
    expect((await sendRaw(smtp.port, raw, { from: ana.user.login, to: [to] })).accepted).toEqual([to]);
    await t.ctx.jobs.drain();
    const bounce = mailsTo(ana).at(-1);
    expect(bounce?.parsed.subject).toBe(translator('en_US')('reply.bounce_subject'));
    expect(bounce?.raw).toMatch(/^Auto-Submitted: auto-replied\r?$/m);
    expect(bounce?.raw).toMatch(/^X-Kith-Mail: reply-bounce\r?$/m);
    // The bounce sent back to a reply address (a loop) is dropped without another bounce.
    const count = outgoing.received.length;
    await sendRaw(smtp.port, bounce?.raw ?? '', { from: 'kith@localhost', to: [to] });
    await t.ctx.jobs.drain();
    expect(outgoing.received.length).toBe(count);
  });

  it('LMTP: one mail to two reply addresses makes two comments, one answer per recipient', async () => {
    const one = await post('One');
    const two = await post('Two');
    const toOne = await replyAddressOf(t.ctx, ana.user.id, one);
    const toTwo = await replyAddressOf(t.ctx, ana.user.id, two);
    const raw = await composeMail({ from: ana.user.login, to: [toOne, toTwo], subject: 'Re: both', text: 'Both!' });
    const sent = await sendRaw(lmtp.port, raw, { from: ana.user.login, to: [toOne, toTwo] }, true);
    expect(sent.accepted).toEqual([toOne, toTwo]);
    expect(await commentsOn(t.ctx, one)).toEqual([expect.objectContaining({ text: 'Both!' })]);
    expect(await commentsOn(t.ctx, two)).toEqual([expect.objectContaining({ text: 'Both!' })]);
  });
});
