import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type * as NodeMailer from 'nodemailer';
import type { SendMailOptions, Transporter } from 'nodemailer';
import type { Config } from '../config.js';

/** One e-mail, fully rendered: what the queue stores (sealed) and a transport sends. */
export interface Mail {
  /** What kind of mail this is, for logs and tests (never the content). */
  kind: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers, e.g. `List-Unsubscribe`. */
  headers?: Record<string, string>;
  /** `<id@domain>`: fixed when the mail is queued, so a retried send carries the same one. */
  messageId: string;
  /** When the mail was queued (ms): its `Date` header. */
  date: number;
}

/**
 * Hands a rendered mail to the world. Never called inside a request: the `send-mail` job calls it
 * (src/mail/queue.ts). Throwing makes the job retry; a `PermanentJobError` stops the retries.
 */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** A mail the receiving side refused for good (5xx reply, unusable address): retrying cannot help. */
export class MailRejected extends Error {
  override readonly name = 'MailRejected';
}

let nodemailer: Promise<typeof NodeMailer> | null = null;

/**
 * nodemailer, loaded with the first mail: an idle server has no use for its 5 MB of code and heap
 * (bench/README.md, idle memory).
 */
async function createTransport(
  options: SMTPTransport.Options | { streamTransport: true; buffer: true; newline: 'windows' },
): Promise<Transporter> {
  nodemailer ??= import('nodemailer');
  return (await nodemailer).default.createTransport(options);
}

/** nodemailer's message options for `mail`, the same for SMTP and the outbox. */
function messageOf(mail: Mail, from: string): SendMailOptions {
  return {
    from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    // Marks Kith's own mails, so that one coming back to the reply address is known as a loop
    // (features/mail-replies/policy.ts). The value is the kind, never the content.
    headers: { 'X-Kith-Mail': mail.kind, ...mail.headers },
    messageId: mail.messageId,
    date: new Date(mail.date),
  };
}

/** Sends over SMTP (`SMTP_URL`), with the TLS settings of the configuration. */
export class SmtpMailer implements Mailer {
  private readonly options: SMTPTransport.Options;
  private transport: Promise<Transporter> | null = null;

  constructor(
    config: Pick<Config, 'smtpUrl' | 'smtpRequireTls' | 'smtpTlsInsecure'>,
    private readonly from: string,
    private readonly log: FastifyBaseLogger,
  ) {
    const url = new URL(config.smtpUrl ?? 'smtp://localhost');
    const secure = url.protocol === 'smtps:';
    this.options = {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
      // smtps:// is TLS from the first byte (port 465); smtp:// upgrades with STARTTLS when the
      // server offers it, and must when SMTP_REQUIRE_TLS is set.
      secure,
      requireTLS: config.smtpRequireTls,
      auth:
        url.username === ''
          ? undefined
          : { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) },
      tls: { rejectUnauthorized: !config.smtpTlsInsecure },
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
      socketTimeout: 60_000,
    };
  }

  async send(mail: Mail): Promise<void> {
    this.transport ??= createTransport(this.options);
    const transport = await this.transport;
    try {
      await transport.sendMail(messageOf(mail, this.from));
    } catch (error) {
      const { responseCode, code } = error as { responseCode?: unknown; code?: unknown };
      const reason = error instanceof Error ? error.message : String(error);
      // A 5xx answer to this message's envelope or content is the server's final word on it.
      // Anything else may pass later: the server down, a 4xx, a timeout, or a setting to fix
      // (TLS, password), after which every waiting mail still goes out.
      const aboutThisMail = code === 'EENVELOPE' || code === 'EMESSAGE';
      if (aboutThisMail && (typeof responseCode !== 'number' || responseCode >= 500)) {
        throw new MailRejected(reason);
      }
      throw error;
    }
    this.log.info({ kind: mail.kind }, 'mail sent');
  }
}

/**
 * Writes every mail as an `.eml` file under `<DATA_DIR>/outbox` when no SMTP server is configured,
 * so nothing is lost and a self-hoster can open them in any mail program.
 */
export class OutboxMailer implements Mailer {
  private transport: Promise<Transporter> | null = null;

  constructor(
    private readonly outboxDir: string,
    private readonly from: string,
    private readonly log: FastifyBaseLogger,
  ) {}

  async send(mail: Mail): Promise<void> {
    this.transport ??= createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
    const info = (await (await this.transport).sendMail(messageOf(mail, this.from))) as { message: Buffer };
    await mkdir(this.outboxDir, { recursive: true });
    // Named by queue time and Message-ID: a retried job overwrites its own file, never adds one.
    const stamp = new Date(mail.date).toISOString().replace(/[:.]/g, '-');
    const id = mail.messageId.replace(/[^A-Za-z0-9-]/g, '').slice(0, 40);
    const file = path.join(this.outboxDir, `${stamp}-${id}.eml`);
    await writeFile(file, info.message, { mode: 0o600 });
    // The address and the content stay out of the logs; the file is where to read them.
    this.log.info({ kind: mail.kind, file: path.basename(file) }, 'mail written to the outbox');
  }
}

/** SMTP when `SMTP_URL` is set, else the outbox folder. */
export function createMailer(config: Config, log: FastifyBaseLogger): Mailer {
  return config.smtpUrl === null
    ? new OutboxMailer(path.join(config.dataDir, 'outbox'), config.mailFrom, log)
    : new SmtpMailer(config, config.mailFrom, log);
}
