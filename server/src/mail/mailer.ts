import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../lib/ids.js';

/** One e-mail to send. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** What kind of mail this is, for logs (never the content). */
  kind: string;
}

/**
 * Sends e-mails. Requests never wait for it: they hand the mail over after their transaction commits.
 * The e-mail issue replaces the outbox writer with SMTP and a durable queue.
 */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** Writes every mail as an `.eml` file under `<DATA_DIR>/outbox`, so nothing is lost without SMTP. */
export class OutboxMailer implements Mailer {
  constructor(
    private readonly outboxDir: string,
    private readonly from: string,
    private readonly log: FastifyBaseLogger,
  ) {}

  async send(mail: Mail): Promise<void> {
    await mkdir(this.outboxDir, { recursive: true });
    const id = newId();
    const file = path.join(this.outboxDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${id}.eml`);
    const domain = this.from.match(/@([^>\s]+)/)?.[1] ?? 'localhost';
    const eml = [
      `From: ${this.from}`,
      `To: ${mail.to}`,
      `Subject: ${encodeHeader(mail.subject)}`,
      `Date: ${new Date().toUTCString()}`,
      `Message-ID: <${id}@${domain}>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      mail.text,
      '',
    ].join('\r\n');
    await writeFile(file, eml, { mode: 0o600 });
    // The address and the content stay out of the logs; the file is where to read them.
    this.log.info({ kind: mail.kind, file: path.basename(file) }, 'mail written to the outbox');
  }
}

/** RFC 2047 encoding for a header that is not plain ASCII. */
function encodeHeader(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}
