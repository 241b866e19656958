import type { Readable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig } from '../config.js';
import type { AppContext } from '../context.js';
import { receiveMail } from '../features/mail-replies/receive.js';
import { closeContext, createContext } from '../setup.js';
import type { CliIo } from './main.js';

/** sysexits.h codes a mail server's pipe transport understands (docs/mail-replies.md). */
export const EXIT = {
  /** Taken in: a comment, a bounce queued by Kith itself, or a robot's mail dropped. */
  ok: 0,
  /** Wrong arguments. */
  usage: 64,
  /** A temporary failure (database unreachable…): the mail server keeps the mail and tries again. */
  tempFail: 75,
  /** Reply by e-mail is off (`REPLY_EMAIL` unset): the mail server returns the mail to its sender. */
  config: 78,
} as const;

/**
 * `receive-mail [--sender S] [--recipient R]`: one mail on stdin, as a pipe transport delivers it
 * (Postfix: `argv=… receive-mail --sender ${sender} --recipient ${recipient}`). Without
 * `--recipient`, the reply address is read from Delivered-To, X-Original-To, To and Cc. Refusals are
 * answered by Kith's own bounce through its mail queue, so the exit code is 0 for them too; 75 asks
 * the mail server to try again later. Prints the results as JSON on stdout.
 */
export async function receiveMailCli(args: string[], io: CliIo & { stdin: Readable }): Promise<number> {
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i] ?? '';
    const value = args[i + 1];
    if ((name !== '--sender' && name !== '--recipient') || value === undefined) {
      io.stderr('kith receive-mail: usage: receive-mail [--sender ADDRESS] [--recipient ADDRESS] < mail.eml\n');
      return EXIT.usage;
    }
    options.set(name.slice(2), value);
  }
  let ctx: AppContext | undefined;
  try {
    const config = loadConfig(io.env ?? process.env);
    if (config.mailReplies === null) {
      io.stderr('kith receive-mail: reply by e-mail is off (set REPLY_EMAIL)\n');
      return EXIT.config;
    }
    ctx = await createContext(config, { log: pino({ level: 'warn' }, pino.destination(2)) });
    const recipient = options.get('recipient');
    const sender = options.get('sender');
    const results = await receiveMail(ctx, io.stdin, {
      ...(sender === undefined ? {} : { sender }),
      ...(recipient === undefined ? {} : { recipients: [recipient] }),
    });
    io.stdout(`${JSON.stringify({ results })}\n`);
    return EXIT.ok;
  } catch (error) {
    io.stderr(`kith receive-mail: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.tempFail;
  } finally {
    if (ctx !== undefined) await closeContext(ctx);
  }
}
