import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

// The SMTP server of the mail delivery tests (src/mail/smtp.int.test.ts and the immediate mail
// tests): real SMTP on 127.0.0.1, each mail parsed back with mailparser.

export interface Received {
  parsed: ParsedMail;
  raw: string;
  envelopeTo: string[];
}

/** An SMTP server on 127.0.0.1 that keeps what it receives; `reject` makes it refuse recipients. */
export class LoopbackSmtp {
  readonly received: Received[] = [];
  reject: { code: number; message: string } | null = null;
  private server: SMTPServer | null = null;
  auth: { user: string; pass: string } | null = null;

  async start(port = 0, options: { starttls?: boolean } = {}): Promise<number> {
    this.server = new SMTPServer({
      authOptional: this.auth === null,
      allowInsecureAuth: true,
      disabledCommands: options.starttls === true ? [] : ['STARTTLS'],
      logger: false,
      onAuth: (auth, _session, callback) => {
        if (this.auth !== null && auth.username === this.auth.user && auth.password === this.auth.pass) {
          callback(null, { user: auth.username });
        } else {
          callback(new Error('Invalid username or password'));
        }
      },
      onRcptTo: (_address, _session, callback) => {
        if (this.reject === null) return callback();
        const error = new Error(this.reject.message) as Error & { responseCode: number };
        error.responseCode = this.reject.code;
        return callback(error);
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          simpleParser(raw)
            .then((parsed) => {
              this.received.push({ parsed, raw, envelopeTo: session.envelope.rcptTo.map((r) => r.address) });
              callback();
            })
            .catch((error: unknown) => callback(error as Error));
        });
      },
    });
    const server = this.server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return (server.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server !== null) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
