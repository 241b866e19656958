import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { AppContext } from '../../context.js';
import { receiveMail } from './receive.js';
import { tokenOfAddress } from './token.js';

/** A running SMTP/LMTP listener. */
export interface MailListener {
  /** The port it listens on (the configured one, or the one picked for port 0). */
  port: number;
  /** Stops accepting connections and closes the open ones. */
  close(): Promise<void>;
}

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/**
 * The SMTP or LMTP listener the local mail server hands replies to (docs/mail-replies.md): no
 * authentication and no TLS (it listens on 127.0.0.1 by default), a size limit announced in EHLO
 * and enforced (552, the mail server bounces), only recipients with the shape of a reply address (550 for others, at RCPT
 * TO). The answer to DATA comes after the mail was taken in: 250 whether it became a comment, a
 * bounce or nothing (a robot's mail); 451 when it must be delivered again later. LMTP answers once
 * per recipient, all alike, since one failure keeps nothing of the mail.
 */
export async function startMailListener(
  ctx: AppContext,
  options: { port?: number; host?: string; protocol?: 'smtp' | 'lmtp' } = {},
): Promise<MailListener> {
  const replies = ctx.config.mailReplies;
  if (replies === null) throw new Error('The mail listener needs REPLY_EMAIL');
  const protocol = options.protocol ?? replies.listener?.protocol ?? 'smtp';
  const server = new SMTPServer({
    lmtp: protocol === 'lmtp',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: replies.maxBytes,
    logger: false,
    banner: 'Kith reply by e-mail',
    onRcptTo(address, _session, callback) {
      if (tokenOfAddress(replies, address.address) === null) {
        callback(smtpError(550, 'No such reply address here'));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      const oversized = () => (stream as { sizeExceeded?: boolean }).sizeExceeded === true;
      // Past the limit the rest is read (the protocol needs it) but not kept.
      stream.on('data', (chunk: Buffer) => {
        if (!oversized()) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (oversized()) {
          callback(smtpError(552, 'Message exceeds the size limit of replies'));
          return;
        }
        const mailFrom = session.envelope.mailFrom;
        receiveMail(ctx, Buffer.concat(chunks), {
          sender: mailFrom === false ? '' : mailFrom.address,
          recipients: session.envelope.rcptTo.map((r) => r.address),
        }).then(
          () => callback(null, 'OK: reply taken in'),
          (error: unknown) => {
            ctx.log.error({ err: error }, 'a reply by e-mail could not be taken in; the mail server will try again');
            callback(smtpError(451, 'Temporary failure, try again later'));
          },
        );
      });
    },
  });
  server.on('error', (error) => ctx.log.warn({ err: error }, 'mail listener connection error'));
  const port = options.port ?? replies.listener?.port ?? 0;
  const host = options.host ?? replies.listener?.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const listening = (server.server.address() as AddressInfo).port;
  ctx.log.info({ port: listening, host, protocol }, 'reply by e-mail: mail listener started');
  return {
    port: listening,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
