import { beforeAll, describe, expect, it } from 'vitest';
import { buildGroup, buildUser, type BuiltUser } from '../../../test/factories.js';
import { useTestApp } from '../../../test/harness.js';
import { commentsOn, composeMail, REPLY_ENV, replyAddressOf } from '../../../test/reply-mails.js';
import type { Mail } from '../../mail/mailer.js';
import { translator } from '../../mail/texts.js';
import { receiveMail } from './receive.js';
import { replyToken } from './token.js';

/**
 * receiveMail (docs/api §11.11), every rule, on the real app and database: what a reply becomes,
 * what is dropped without a word, and what is refused with a bounce (sent through the mail queue,
 * which the tests run).
 */

const DAY = 24 * 60 * 60 * 1000;
/** A 64×48 JPEG made once with sharp. */
const JPEG_BASE64 =
  '/9j/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMC' +
  'UoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgo' +
  'KCgoKCj/wAARCAAwAEADASIAAhEBAxEB/8QAFwABAQEBAAAAAAAAAAAAAAAABAUGCP/EABcQAAMBAAAAAAAAAAAAAA' +
  'AAAAADBGH/xAAXAQEBAQEAAAAAAAAAAAAAAAAEBgMI/8QAFxEBAQEBAAAAAAAAAAAAAAAABAACA//aAAwDAQACEQMR' +
  'AD8A5+VJg1UmFRUmDVSYXe0wCspSpMGqkwqqkwYqTAfRNSlZSlSYNVJhVVJgxUmA9pqQrKWqTBqpMKipMGqkwFtNSF' +
  'ZYdUmDUyYVFSYNVJhr0Tc0lZS1SYNVJhUVJg1UmA9pqUrKUqTBqpMKipMGqkwF0TUhWUpUmDVSYVVSYMVJgPaalKyx' +
  'CpMGqkwqKkwamTDXabmkrKUqTBqZMKqpMGKkwF0TUhWUtUmDFSYVVSYNTJgPaakKylKkwamTCoqTBqpMB9E1KVl//9' +
  'k=';

describe('reply by e-mail: receiveMail', () => {
  const h = useTestApp({ ...REPLY_ENV, REPLY_MAX_MB: '1' });
  let ana: BuiltUser;
  let ben: BuiltUser;
  let group: string;

  beforeAll(async () => {
    ana = await buildUser(h.t.ctx, { name: 'Ana', login: 'ana.reply@example.org' });
    ben = await buildUser(h.t.ctx, { name: 'Ben', login: 'ben.reply@example.org' });
    group = (await buildGroup(h.t.ctx, { name: 'Family', members: [ana, ben] })).id;
  });

  /** A new post by Ben, which Ana replies to. */
  async function post(text = 'Lunch on Sunday?'): Promise<string> {
    const res = await h.api.post('/messages', { key: ben.key, body: { group, data: { text } } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  let counter = 0;
  /** A reply written by a mail program: from Ana unless told, to `to`, with a fresh Message-ID. */
  function reply(to: string, options: Parameters<typeof composeMail>[0] = {}): Promise<Buffer> {
    counter += 1;
    return composeMail({
      from: `Ana <${ana.user.login}>`,
      to,
      subject: 'Re: Lunch on Sunday?',
      messageId: `<reply-${counter}-${Date.now()}@mail.example.net>`,
      text: 'Count me in!\n\n> Lunch on Sunday?\n',
      ...options,
    });
  }

  /** The bounces sent to `address` so far, after running the mail queue. */
  async function bouncesTo(address: string): Promise<Mail[]> {
    await h.t.ctx.jobs.drain();
    return h.t.mailer.sent.filter((m) => m.kind === 'reply-bounce' && m.to === address);
  }

  it('makes a reply a comment by its sender on the message, without the quoted text', async () => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    expect(to).toMatch(/^reply\+[a-z2-7]{32}@kith\.test$/);
    const results = await receiveMail(h.t.ctx, await reply(to));
    expect(results).toEqual([{ outcome: 'posted', recipient: expect.any(String), commentId: expect.any(String) }]);
    expect(await commentsOn(h.t.ctx, postId)).toEqual([
      { id: expect.any(String), author: ana.user.id, text: 'Count me in!', files: 0 },
    ]);
    // The same as a comment written in Kith: Ben, the author, is notified of it.
    const notifications = await h.api.get('/me/notifications', { key: ben.key });
    expect(JSON.stringify(notifications.body)).toContain(results[0]?.outcome === 'posted' ? results[0].commentId : '-');
  });

  it('finds the reply address in an upper-cased address and in the headers when no envelope is given', async () => {
    const postId = await post();
    const to = (await replyAddressOf(h.t.ctx, ana.user.id, postId)).toUpperCase();
    const results = await receiveMail(h.t.ctx, await reply(`Kith <${to}>`));
    expect(results.map((r) => r.outcome)).toEqual(['posted']);
    expect(await commentsOn(h.t.ctx, postId)).toHaveLength(1);
  });

  it('takes the envelope recipient over the headers', async () => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    const raw = await reply('someone-else@example.org');
    const results = await receiveMail(h.t.ctx, raw, { sender: ana.user.login, recipients: [to] });
    expect(results.map((r) => r.outcome)).toEqual(['posted']);
  });

  it('converts an HTML-only reply to text', async () => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    const raw = await reply(to, { text: undefined, html: '<div dir="ltr"><p>Dinner at <b>eight</b> then.</p></div>' });
    expect((await receiveMail(h.t.ctx, raw)).map((r) => r.outcome)).toEqual(['posted']);
    const [comment] = await commentsOn(h.t.ctx, postId);
    expect(comment?.text).toContain('Dinner at eight then.');
    expect(comment?.text).not.toContain('<');
  });

  it('turns an attached photo into a file of the comment, through the upload pipeline', async () => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    const raw = await reply(to, {
      text: 'Here it is',
      attachments: [
        { filename: 'garden.jpg', content: Buffer.from(JPEG_BASE64, 'base64'), contentType: 'image/jpeg' },
        // Not a photo: left out.
        { filename: 'notes.txt', content: 'a list', contentType: 'text/plain' },
      ],
    });
    const [result] = await receiveMail(h.t.ctx, raw);
    expect(result?.outcome).toBe('posted');
    const [comment] = await commentsOn(h.t.ctx, postId);
    expect(comment).toMatchObject({ text: 'Here it is', files: 1 });
    const answer = await h.api.get(`/messages/${comment?.id}`, { key: ana.key });
    expect(answer.body.files).toEqual([
      expect.objectContaining({ type: 'image/jpeg', status: 'ready', name: 'garden.jpg' }),
    ]);
  });

  it('posts a photo without text', async () => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    const raw = await reply(to, {
      text: '',
      attachments: [{ filename: 'a.jpg', content: Buffer.from(JPEG_BASE64, 'base64'), contentType: 'image/jpeg' }],
    });
    expect((await receiveMail(h.t.ctx, raw)).map((r) => r.outcome)).toEqual(['posted']);
    expect(await commentsOn(h.t.ctx, postId)).toEqual([expect.objectContaining({ text: null, files: 1 })]);
  });

  it('refuses an empty reply (only the quote) with a bounce, and posts nothing', async () => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    const results = await receiveMail(h.t.ctx, await reply(to, { text: '> Lunch on Sunday?\n' }));
    expect(results).toEqual([{ outcome: 'bounced', recipient: expect.any(String), reason: 'empty' }]);
    expect(await commentsOn(h.t.ctx, postId)).toEqual([]);
    const [bounce] = await bouncesTo(ana.user.login);
    expect(bounce?.text).toContain(translator('en_US')('reply.reason_empty'));
    expect(bounce?.headers?.['Auto-Submitted']).toBe('auto-replied');
  });

  it('refuses a token with a wrong signature, in the instance language, and posts nothing', async () => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    const forged = to.replace(/\+([a-z2-7]{16})[a-z2-7]{16}@/, (_m, id: string) => `+${id}${'a'.repeat(16)}@`);
    expect(forged).not.toBe(to);
    const before = (await bouncesTo(ana.user.login)).length;
    const results = await receiveMail(h.t.ctx, await reply(forged));
    expect(results).toEqual([{ outcome: 'bounced', recipient: expect.any(String), reason: 'unknown_address' }]);
    expect(await commentsOn(h.t.ctx, postId)).toEqual([]);
    const bounces = await bouncesTo(ana.user.login);
    expect(bounces).toHaveLength(before + 1);
    expect(bounces.at(-1)?.subject).toBe(translator('en_US')('reply.bounce_subject'));
  });

  it('refuses a signed token whose address does not exist', async () => {
    const token = replyToken(h.t.config.secretKey, 'abcdefghijklmnop');
    const results = await receiveMail(h.t.ctx, await reply(`reply+${token}@kith.test`));
    expect(results.map((r) => r.outcome === 'bounced' && r.reason)).toEqual(['unknown_address']);
  });

  it('refuses a mail to no reply address at all', async () => {
    const results = await receiveMail(h.t.ctx, await reply('reply@kith.test'));
    expect(results).toEqual([{ outcome: 'bounced', recipient: null, reason: 'unknown_address' }]);
  });

  it('refuses an expired address in the account language (the test clock moves past REPLY_TOKEN_DAYS)', async () => {
    const cleo = await buildUser(h.t.ctx, { name: 'Cléo', login: 'cleo.reply@example.org' });
    await h.t.ctx.db.kysely.updateTable('users').set({ lang: 'fr_FR' }).where('id', '=', cleo.user.id).execute();
    const shared = (await buildGroup(h.t.ctx, { members: [ben, cleo] })).id;
    const res = await h.api.post('/messages', { key: ben.key, body: { group: shared, data: { text: 'Photos?' } } });
    const to = await replyAddressOf(h.t.ctx, cleo.user.id, res.body.id as string);
    h.t.clock.advance(31 * DAY);
    const raw = await composeMail({ from: cleo.user.login, to, subject: 'Re: Photos?', text: 'Yes!' });
    expect((await receiveMail(h.t.ctx, raw)).map((r) => r.outcome === 'bounced' && r.reason)).toEqual(['expired']);
    expect(await commentsOn(h.t.ctx, res.body.id as string)).toEqual([]);
    const [bounce] = await bouncesTo(cleo.user.login);
    expect(bounce?.subject).toBe(translator('fr_FR')('reply.bounce_subject'));
    expect(bounce?.text).toContain(translator('fr_FR')('reply.reason_expired'));
  });

  it('refuses a reply of someone who has left the group', async () => {
    const dan = await buildUser(h.t.ctx, { login: 'dan.reply@example.org' });
    const shared = (await buildGroup(h.t.ctx, { members: [ben, dan] })).id;
    const res = await h.api.post('/messages', { key: ben.key, body: { group: shared, data: { text: 'Hello' } } });
    const to = await replyAddressOf(h.t.ctx, dan.user.id, res.body.id as string);
    await h.t.ctx.db.kysely
      .deleteFrom('memberships')
      .where('group_id', '=', shared)
      .where('user_id', '=', dan.user.id)
      .execute();
    const raw = await composeMail({ from: dan.user.login, to, subject: 'Re: Hello', text: 'Hi!' });
    expect((await receiveMail(h.t.ctx, raw)).map((r) => r.outcome === 'bounced' && r.reason)).toEqual(['not_member']);
    expect(await commentsOn(h.t.ctx, res.body.id as string)).toEqual([]);
    expect(await bouncesTo(dan.user.login)).toHaveLength(1);
  });

  it('refuses a reply to a deleted message', async () => {
    // A comment with answers is deleted as a placeholder, which its reply addresses still name.
    const postId = await post();
    const comment = await h.api.post('/messages', {
      key: ben.key,
      body: { group, parent: postId, data: { text: 'c' } },
    });
    const commentId = comment.body.id as string;
    const answer = await h.api.post('/messages', {
      key: ben.key,
      body: { group, parent: commentId, data: { text: 'a' } },
    });
    expect(answer.status).toBe(201);
    const to = await replyAddressOf(h.t.ctx, ana.user.id, commentId);
    expect((await h.api.delete(`/messages/${commentId}`, { key: ben.key })).status).toBe(204);
    const results = await receiveMail(h.t.ctx, await reply(to));
    expect(results.map((r) => r.outcome === 'bounced' && r.reason)).toEqual(['message_gone']);
    expect(await commentsOn(h.t.ctx, commentId)).toHaveLength(1);

    // A post goes with its thread, and its reply addresses with it.
    const postTo = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    expect((await h.api.delete(`/messages/${postId}`, { key: ben.key })).status).toBe(204);
    const gone = await receiveMail(h.t.ctx, await reply(postTo));
    expect(gone.map((r) => r.outcome === 'bounced' && r.reason)).toEqual(['unknown_address']);
  });

  it('refuses a reply sent from another address than the account login, in the instance language', async () => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    const raw = await reply(to, { from: 'mallory@example.net' });
    expect((await receiveMail(h.t.ctx, raw)).map((r) => r.outcome === 'bounced' && r.reason)).toEqual(['wrong_sender']);
    expect(await commentsOn(h.t.ctx, postId)).toEqual([]);
    expect(await bouncesTo('mallory@example.net')).toHaveLength(1);
  });

  it('accepts the login address written in another case', async () => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    const raw = await reply(to, { from: ana.user.login.toUpperCase() });
    expect((await receiveMail(h.t.ctx, raw)).map((r) => r.outcome)).toEqual(['posted']);
  });

  const automatic: [string, Record<string, string>, string][] = [
    ['Auto-Submitted: auto-replied', { 'Auto-Submitted': 'auto-replied' }, 'auto_reply'],
    ['Auto-Submitted: auto-generated', { 'Auto-Submitted': 'auto-generated' }, 'auto_reply'],
    ['X-Autoreply', { 'X-Autoreply': 'yes' }, 'auto_reply'],
    ['X-Autorespond', { 'X-Autorespond': 'Out of office' }, 'auto_reply'],
    ['Precedence: bulk', { Precedence: 'bulk' }, 'bulk'],
    ['Precedence: junk', { Precedence: 'junk' }, 'bulk'],
    ['Precedence: list', { Precedence: 'list' }, 'bulk'],
    ['Return-Path: <>', { 'Return-Path': '<>' }, 'null_sender'],
    ['X-Kith-Mail (a mail Kith sent)', { 'X-Kith-Mail': 'digest' }, 'loop'],
  ];
  it.each(automatic)('drops a mail with %s without a bounce, and posts nothing', async (_name, headers, reason) => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    const before = h.t.mailer.sent.length;
    const results = await receiveMail(h.t.ctx, await reply(to, { headers }));
    expect(results).toEqual([{ outcome: 'dropped', recipient: null, reason }]);
    expect(await commentsOn(h.t.ctx, postId)).toEqual([]);
    await h.t.ctx.jobs.drain();
    expect(h.t.mailer.sent.slice(before)).toEqual([]);
  });

  it('drops a bounce (empty envelope sender) and a mail with a Message-ID of Kith’s own', async () => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    const bounce = await receiveMail(h.t.ctx, await reply(to), { sender: '', recipients: [to] });
    expect(bounce).toEqual([{ outcome: 'dropped', recipient: null, reason: 'null_sender' }]);
    // Postfix's pipe passes the null sender as MAILER-DAEMON.
    const piped = await receiveMail(h.t.ctx, await reply(to), { sender: 'MAILER-DAEMON', recipients: [to] });
    expect(piped).toEqual([{ outcome: 'dropped', recipient: null, reason: 'null_sender' }]);
    const own = await reply(to, { messageId: '<0b9d3c1a-7e55-4d2f-9a43-2f1c8e6d4b10@localhost>' });
    expect(await receiveMail(h.t.ctx, own)).toEqual([{ outcome: 'dropped', recipient: null, reason: 'loop' }]);
    expect(await commentsOn(h.t.ctx, postId)).toEqual([]);
  });

  it('drops a mail that went through too many servers (a loop)', async () => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    const raw = await reply(to);
    const hops = Array.from(
      { length: 31 },
      (_, i) => `Received: from mx${i}.example.net by mx${i + 1}.example.net\r\n`,
    );
    const looped = Buffer.concat([Buffer.from(hops.join('')), raw]);
    expect(await receiveMail(h.t.ctx, looped)).toEqual([{ outcome: 'dropped', recipient: null, reason: 'loop' }]);
    expect(await commentsOn(h.t.ctx, postId)).toEqual([]);
  });

  it('posts a mail marked Auto-Submitted: no', async () => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    const results = await receiveMail(h.t.ctx, await reply(to, { headers: { 'Auto-Submitted': 'no' } }));
    expect(results.map((r) => r.outcome)).toEqual(['posted']);
  });

  it('makes one comment of a mail delivered twice (same Message-ID)', async () => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    const raw = await reply(to);
    expect((await receiveMail(h.t.ctx, raw)).map((r) => r.outcome)).toEqual(['posted']);
    expect(await receiveMail(h.t.ctx, raw)).toEqual([
      { outcome: 'dropped', recipient: expect.any(String), reason: 'duplicate' },
    ]);
    expect(await commentsOn(h.t.ctx, postId)).toHaveLength(1);
  });

  it('refuses a mail over REPLY_MAX_MB', async () => {
    const postId = await post();
    const to = await replyAddressOf(h.t.ctx, ana.user.id, postId);
    const raw = await reply(to, {
      attachments: [{ filename: 'big.bin', content: Buffer.alloc(1024 * 1024 + 10, 1) }],
    });
    expect((await receiveMail(h.t.ctx, raw)).map((r) => r.outcome === 'bounced' && r.reason)).toEqual(['too_big']);
    expect(await commentsOn(h.t.ctx, postId)).toEqual([]);
  });

  it('limits replies per user and hour, then refuses with a bounce', async () => {
    const eve = await buildUser(h.t.ctx, { login: 'eve.reply@example.org' });
    const shared = (await buildGroup(h.t.ctx, { members: [ben, eve] })).id;
    const res = await h.api.post('/messages', { key: ben.key, body: { group: shared, data: { text: 'Ideas?' } } });
    const postId = res.body.id as string;
    const to = await replyAddressOf(h.t.ctx, eve.user.id, postId);
    const send = async (i: number) =>
      receiveMail(
        h.t.ctx,
        await composeMail({
          from: eve.user.login,
          to,
          subject: 'Re: Ideas?',
          text: `Idea ${i}`,
          messageId: `<idea-${i}@x.example>`,
        }),
      );
    for (let i = 0; i < 20; i += 1) expect((await send(i)).map((r) => r.outcome)).toEqual(['posted']);
    expect((await send(20)).map((r) => r.outcome === 'bounced' && r.reason)).toEqual(['rate_limited']);
    expect(await commentsOn(h.t.ctx, postId)).toHaveLength(20);
    expect(await bouncesTo(eve.user.login)).toHaveLength(1);
    // An hour later the window has passed.
    h.t.clock.advance(61 * 60 * 1000);
    expect((await send(21)).map((r) => r.outcome)).toEqual(['posted']);
  });
});
