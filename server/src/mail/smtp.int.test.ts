import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../test/client.js';
import { buildGroup, buildUser } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { LoopbackSmtp, type Received } from '../../test/loopback-smtp.js';
import { runDigestSchedule } from '../features/digests/service.js';
import { mailTexts } from './texts.js';

/**
 * Mail delivery for real: the app's own SMTP transport against an SMTP server on loopback, the
 * mails parsed back with mailparser; and the outbox folder when no SMTP server is configured.
 */

/** A loopback port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const header = (mail: ParsedMail, name: string) => mail.headerLines.find((h) => h.key === name)?.line ?? '';

describe('SMTP delivery', () => {
  const smtp = new LoopbackSmtp();
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    const port = await smtp.start();
    t = await createTestApp(
      { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Kith Family <kith@family.test>', TIME_ZONE: 'UTC' },
      { realMailer: true },
    );
    api = new ApiClient(t.app);
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  it('resets a forgotten password from the e-mail alone: mail, link, new password, login', async () => {
    const ana = await buildUser(t.ctx, { name: 'Ana', login: 'ana.smtp@example.org' });
    expect((await api.post('/password-reset-mail', { body: { mail: 'ana.smtp@example.org' } })).status).toBe(200);
    // Nothing is sent inside the request: the mail waits in the queue.
    expect(smtp.received).toHaveLength(0);
    await t.ctx.jobs.drain();
    expect(smtp.received).toHaveLength(1);
    const { parsed, envelopeTo } = smtp.received[0] as Received;
    expect(envelopeTo).toEqual(['ana.smtp@example.org']);
    expect(parsed.from?.value[0]).toEqual({ address: 'kith@family.test', name: 'Kith Family' });
    expect(parsed.subject).toBe(mailTexts('en_US')['password_reset_subject']);
    expect(parsed.messageId).toMatch(/^<[0-9a-f-]{36}@family\.test>$/);
    expect(Math.abs((parsed.date?.getTime() ?? 0) - t.clock.now())).toBeLessThan(1000);
    expect(parsed.html).toContain('<table');
    expect(parsed.html).not.toMatch(/<script|<link /i);

    const link = /http:\/\/kith\.test\/password-reset\?[^\s]+/.exec(parsed.text ?? '')?.[0];
    expect(link).toBeDefined();
    const query = new URL(link ?? '').searchParams;
    expect(query.get('mail')).toBe('ana.smtp@example.org');
    // The HTML part's button carries the same link.
    expect(parsed.html).toContain((link ?? '').replace(/&/g, '&amp;'));

    const reset = await api.post('/new-password', {
      body: { mail: query.get('mail'), key: query.get('key'), password: 'a new password from the mail' },
    });
    expect(reset.status).toBe(200);
    const login = await api.post('/login', {
      body: { login: 'ana.smtp@example.org', password: 'a new password from the mail' },
    });
    expect(login.status).toBe(200);
    expect(login.body.api_key).toBe(reset.body.api_key);
    expect(ana.key).not.toBe(reset.body.api_key);
    // And the "password changed" notice follows.
    await t.ctx.jobs.drain();
    expect(smtp.received.at(-1)?.parsed.subject).toBe(mailTexts('en_US')['password_changed_subject']);
  });

  it('writes the mail in the recipient’s language with encoded UTF-8 headers', async () => {
    const before = smtp.received.length;
    const boris = await buildUser(t.ctx, { name: 'Борис', login: 'boris@example.org' });
    await api.put(`/users/${boris.user.id}`, { key: boris.key, body: { data: { lang: 'ru_RU' } } });
    await api.post('/password-reset-mail', { body: { mail: 'boris@example.org' } });
    await t.ctx.jobs.drain();
    const got = smtp.received.slice(before).find((r) => r.envelopeTo.includes('boris@example.org'));
    expect(got).toBeDefined();
    const subject = mailTexts('ru_RU')['password_reset_subject'];
    expect(subject).toMatch(/[\u0400-\u04ff]/);
    expect(got?.parsed.subject).toBe(subject);
    expect(got?.raw).toMatch(/^Subject: =\?UTF-8\?[BQ]\?/im);
    expect(got?.parsed.text).toContain('Борис');
    expect(got?.parsed.html).toContain('<html lang="ru-RU">');
  });

  it('sends a digest with the one-click unsubscribe headers, and the POST they name works', async () => {
    t.clock.set(Date.parse('2026-06-01T10:30:00Z'));
    await runDigestSchedule(t.ctx);
    const cara = await buildUser(t.ctx, { name: 'Cara', login: 'cara@example.org', notificationEmails: 'hourly' });
    const dev = await buildUser(t.ctx, { name: 'Dev' });
    const group = await buildGroup(t.ctx, { name: 'Choir', members: [cara, dev] });
    await api.post('/messages', { key: dev.key, body: { group: group.id, data: { title: 'Rehearsal moved' } } });
    t.clock.set(Date.parse('2026-06-01T11:00:00Z'));
    await runDigestSchedule(t.ctx);
    await t.ctx.jobs.drain();
    const digest = smtp.received.find((r) => r.envelopeTo.includes('cara@example.org'));
    expect(digest?.parsed.subject).toBe('1 new message in your groups');
    expect(digest?.parsed.text).toContain('Rehearsal moved');
    const unsubscribe = /^<(.+)>$/.exec(
      header(digest?.parsed as ParsedMail, 'list-unsubscribe').replace(/^[^:]+:\s*/, ''),
    );
    expect(unsubscribe?.[1]).toMatch(/^http:\/\/kith\.test\/api\/stop-notification-emails\//);
    expect(header(digest?.parsed as ParsedMail, 'list-unsubscribe-post')).toMatch(
      /^List-Unsubscribe-Post:\s*List-Unsubscribe=One-Click$/i,
    );
    const res = await t.app.inject({
      method: 'POST',
      url: (unsubscribe?.[1] ?? '').slice('http://kith.test'.length),
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--x--\r\n',
    });
    expect(res.statusCode).toBe(200);
    const me = await api.get('/me', { key: cara.key });
    expect(me.body.data.notification_emails).toBe('none');
  });
});

describe('SMTP down, then up again', () => {
  const smtp = new LoopbackSmtp();
  let t: TestApp;
  let api: ApiClient;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    t = await createTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}` }, { realMailer: true });
    api = new ApiClient(t.app);
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  it('keeps the mail, retries with backoff, and delivers it exactly once', async () => {
    await buildUser(t.ctx, { login: 'eli@example.org' });
    await api.post('/password-reset-mail', { body: { mail: 'eli@example.org' } });
    await t.ctx.jobs.drain(); // connection refused: the job waits for its retry
    const job = await t.ctx.db.kysely.selectFrom('jobs').selectAll().where('name', '=', 'send-mail').executeTakeFirst();
    expect(job?.status).toBe('queued');
    expect(job?.attempts).toBe(1);
    expect(Number(job?.run_after)).toBeGreaterThan(t.clock.now());
    // The queued mail is sealed: neither the address nor the reset link is readable in the database.
    expect(job?.payload).not.toContain('eli@example.org');
    expect(job?.payload).not.toContain('password-reset');

    await smtp.start(port);
    await t.ctx.jobs.drain(); // not due yet
    expect(smtp.received).toHaveLength(0);
    t.clock.advance(11_000);
    await t.ctx.jobs.drain();
    expect(smtp.received).toHaveLength(1);
    t.clock.advance(60 * 60_000);
    await t.ctx.jobs.drain();
    expect(smtp.received).toHaveLength(1);
    const done = await t.ctx.db.kysely
      .selectFrom('jobs')
      .select('status')
      .where('id', '=', job?.id ?? '')
      .executeTakeFirst();
    expect(done?.status).toBe('done');
  });

  it('survives a restart between the failure and the retry', async () => {
    await smtp.stop();
    const before = smtp.received.length;
    await buildUser(t.ctx, { login: 'fen@example.org' });
    await api.post('/password-reset-mail', { body: { mail: 'fen@example.org' } });
    await t.ctx.jobs.drain();
    // A new process on the same database finds the queued mail.
    await t.ctx.jobs.stop();
    const { closeContext, createContext } = await import('../setup.js');
    const restarted = await createContext(t.config, { db: t.ctx.db, clock: t.clock, log: t.ctx.log as never });
    await smtp.start(port);
    t.clock.advance(11_000);
    await restarted.jobs.drain();
    const fen = smtp.received.slice(before).filter((r) => r.envelopeTo.includes('fen@example.org'));
    expect(fen).toHaveLength(1);
    await restarted.jobs.stop();
    await closeContext(restarted, { database: false });
  });
});

describe('SMTP refusals and TLS settings', () => {
  const smtp = new LoopbackSmtp();
  let port: number;
  const apps: TestApp[] = [];
  afterEach(async () => {
    while (apps.length > 0) await apps.pop()?.close();
    await smtp.stop();
    smtp.reject = null;
    smtp.auth = null;
    smtp.received.length = 0;
  });
  beforeAll(async () => {
    port = await freePort();
  });

  async function appWith(env: Record<string, string>) {
    const t = await createTestApp(env, { realMailer: true });
    apps.push(t);
    return { t, api: new ApiClient(t.app) };
  }
  const jobOf = async (t: TestApp) =>
    t.ctx.db.kysely.selectFrom('jobs').selectAll().where('name', '=', 'send-mail').executeTakeFirst();

  it('gives a mail up at once when the server refuses it for good (5xx)', async () => {
    smtp.reject = { code: 550, message: 'No such mailbox' };
    await smtp.start(port);
    const { t, api } = await appWith({ SMTP_URL: `smtp://127.0.0.1:${port}` });
    await buildUser(t.ctx, { login: 'gil@example.org' });
    await api.post('/password-reset-mail', { body: { mail: 'gil@example.org' } });
    await t.ctx.jobs.drain();
    const job = await jobOf(t);
    expect(job?.status).toBe('failed');
    expect(job?.attempts).toBe(1);
    expect(smtp.received).toHaveLength(0);
  });

  it('retries a temporary refusal (4xx)', async () => {
    smtp.reject = { code: 451, message: 'Try again later' };
    await smtp.start(port);
    const { t, api } = await appWith({ SMTP_URL: `smtp://127.0.0.1:${port}` });
    await buildUser(t.ctx, { login: 'hugo@example.org' });
    await api.post('/password-reset-mail', { body: { mail: 'hugo@example.org' } });
    await t.ctx.jobs.drain();
    expect((await jobOf(t))?.status).toBe('queued');
    smtp.reject = null;
    t.clock.advance(11_000);
    await t.ctx.jobs.drain();
    expect(smtp.received).toHaveLength(1);
  });

  it('logs in with the user name and password of SMTP_URL', async () => {
    smtp.auth = { user: 'kith@family.test', pass: 'p@ss word' };
    await smtp.start(port);
    const { t, api } = await appWith({ SMTP_URL: `smtp://kith%40family.test:p%40ss%20word@127.0.0.1:${port}` });
    await buildUser(t.ctx, { login: 'ida@example.org' });
    await api.post('/password-reset-mail', { body: { mail: 'ida@example.org' } });
    await t.ctx.jobs.drain();
    expect(smtp.received).toHaveLength(1);
  });

  it('refuses to send in clear when SMTP_REQUIRE_TLS is set and the server offers no STARTTLS', async () => {
    await smtp.start(port);
    const { t, api } = await appWith({ SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_REQUIRE_TLS: 'true' });
    await buildUser(t.ctx, { login: 'jo@example.org' });
    await api.post('/password-reset-mail', { body: { mail: 'jo@example.org' } });
    await t.ctx.jobs.drain();
    expect(smtp.received).toHaveLength(0);
    expect((await jobOf(t))?.status).toBe('queued');
  });

  it('upgrades with STARTTLS, and accepts a self-signed certificate only when told to', async () => {
    await smtp.start(port, { starttls: true });
    const strict = await appWith({ SMTP_URL: `smtp://127.0.0.1:${port}` });
    await buildUser(strict.t.ctx, { login: 'kai@example.org' });
    await strict.api.post('/password-reset-mail', { body: { mail: 'kai@example.org' } });
    await strict.t.ctx.jobs.drain();
    expect(smtp.received).toHaveLength(0);

    const lenient = await appWith({
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      SMTP_TLS_INSECURE: 'true',
      SMTP_REQUIRE_TLS: 'true',
    });
    await buildUser(lenient.t.ctx, { login: 'lou@example.org' });
    await lenient.api.post('/password-reset-mail', { body: { mail: 'lou@example.org' } });
    await lenient.t.ctx.jobs.drain();
    expect(smtp.received).toHaveLength(1);
  });
});

describe('no SMTP configured: the outbox folder', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeAll(async () => {
    t = await createTestApp({}, { realMailer: true });
    api = new ApiClient(t.app);
  });
  afterAll(() => t.close());

  it('writes each mail once as a readable .eml file', async () => {
    await buildUser(t.ctx, { name: 'Mia', login: 'mia@example.org' });
    await api.post('/password-reset-mail', { body: { mail: 'mia@example.org' } });
    await t.ctx.jobs.drain();
    const outbox = path.join(t.config.dataDir, 'outbox');
    const files = readdirSync(outbox).filter((f) => f.endsWith('.eml'));
    expect(files).toHaveLength(1);
    const file = path.join(outbox, files[0] ?? '');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const parsed = await simpleParser(readFileSync(file));
    expect(parsed.to && 'text' in parsed.to ? parsed.to.text : '').toBe('mia@example.org');
    expect(parsed.subject).toBe(mailTexts('en_US')['password_reset_subject']);
    expect(parsed.text).toContain('http://kith.test/password-reset?mail=mia%40example.org&key=');
    expect(parsed.html).toContain('Mia');
  });
});
