import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { SendMailOptions } from 'nodemailer';
import type { AppContext } from '../src/context.js';
import { transaction } from '../src/db/transaction.js';
import { replyAddressFor } from '../src/features/mail-replies/addresses.js';

// Reply by e-mail in tests (issue 21): the settings, reply addresses, mails written with nodemailer
// (real MIME, as a mail program writes it), and the fixture mails of server/test/fixtures/reply-mails.

/** The reply settings of the test apps. */
export const REPLY_ENV = { REPLY_EMAIL: 'reply@kith.test' } as const;

/** The reply address of `userId` for `messageId`, as a notification mail would carry it. */
export async function replyAddressOf(ctx: AppContext, userId: string, messageId: string): Promise<string> {
  const address = await transaction(ctx, (tx) => replyAddressFor(ctx, tx, userId, messageId));
  if (address === null) throw new Error('reply by e-mail is off in this test app');
  return address;
}

/** A mail as a mail program writes it, as raw bytes (CRLF lines). */
export async function composeMail(options: SendMailOptions & { headers?: Record<string, string> }): Promise<Buffer> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  const info = (await transport.sendMail(options)) as { message: Buffer };
  return info.message;
}

/** Sends a raw mail to `port` over SMTP or LMTP with nodemailer's SMTP transport (the "MTA"). */
export async function sendRaw(
  port: number,
  raw: Buffer | string,
  envelope: { from: string; to: string[] },
  lmtp = false,
): Promise<SMTPTransport.SentMessageInfo> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    lmtp,
  } as SMTPTransport.Options);
  try {
    return await transport.sendMail({ envelope, raw });
  } finally {
    transport.close();
  }
}

export interface ReplyFixture {
  name: string;
  /** The mail with `{{FROM}}` and `{{TO}}` still in it. */
  template: string;
  expected: { text: string; photos: number };
}

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'reply-mails');

/** Every `<name>.eml` of the reply fixtures with its `<name>.expected.json`. */
export function replyFixtures(): ReplyFixture[] {
  return readdirSync(FIXTURES)
    .filter((file) => file.endsWith('.eml'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.eml'.length);
      return {
        name,
        template: readFileSync(path.join(FIXTURES, file), 'utf8'),
        expected: JSON.parse(readFileSync(path.join(FIXTURES, `${name}.expected.json`), 'utf8')) as {
          text: string;
          photos: number;
        },
      };
    });
}

/** A fixture written by `from` to `to` (each placeholder replaced), with CRLF line ends as on the wire. */
export function fillFixture(template: string, from: string, to: string): string {
  return template.replaceAll('{{FROM}}', from).replaceAll('{{TO}}', to).replace(/\r?\n/g, '\r\n');
}

/** The comments on a message: author, text and number of files, oldest first. */
export async function commentsOn(
  ctx: AppContext,
  messageId: string,
): Promise<{ id: string; author: string | null; text: string | null; files: number }[]> {
  const rows = await ctx.db.kysely
    .selectFrom('messages')
    .select(['id', 'author_id', 'text', 'created_at'])
    .where('parent_id', '=', messageId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const out = [];
  for (const row of rows) {
    const files = await ctx.db.kysely
      .selectFrom('message_files')
      .select('file_id')
      .where('message_id', '=', row.id)
      .execute();
    out.push({ id: row.id, author: row.author_id, text: row.text, files: files.length });
  }
  return out;
}
