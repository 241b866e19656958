import { runDigestSchedule } from '../src/features/digests/service.js';
import { createTestApp, type TestApp } from './harness.js';
import type { LoopbackSmtp, Received } from './loopback-smtp.js';

/** The morning the mail tests start at: a weekday, well clear of the daily digest hour. */
export const MAIL_TEST_START = Date.parse('2026-06-03T10:17:00Z');

/**
 * An app whose mails leave through its real SMTP transport to `smtp` (started here), in UTC, on the
 * test clock at MAIL_TEST_START, with the digest schedule already started so that no digest is
 * owed from before and none interferes with what a test counts.
 */
export async function createMailTestApp(smtp: LoopbackSmtp, env: Record<string, string> = {}): Promise<TestApp> {
  const port = await smtp.start();
  const t = await createTestApp(
    { SMTP_URL: `smtp://127.0.0.1:${port}`, TIME_ZONE: 'UTC', ...env },
    { realMailer: true },
  );
  t.clock.set(MAIL_TEST_START);
  await runDigestSchedule(t.ctx);
  return t;
}

/** The mails `smtp` received for an account, oldest first. */
export function mailsFor(smtp: LoopbackSmtp, user: { user: { login: string } }): Received[] {
  return smtp.received.filter((r) => r.envelopeTo.includes(user.user.login));
}
