import { createECDH, randomBytes, type ECDH } from 'node:crypto';
import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PushPayload } from '@kith/common';
import { decrypt } from 'http_ece';

/**
 * A push service stand-in for the Web Push tests (features/push): a real HTTP server on 127.0.0.1
 * that records every push, and devices whose keys a test made itself, so it can decrypt what the
 * server sent as a browser would (RFC 8291, aes128gcm) and read the payload.
 */

/** One push as the stand-in received it. */
export interface ReceivedPush {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What the stand-in answers on a path: a status, or never (a hanging push service). */
export type PushAnswer = number | 'hang';

export class PushServiceStandIn {
  readonly received: ReceivedPush[] = [];
  private readonly answers = new Map<string, PushAnswer>();
  private readonly hanging: ServerResponse[] = [];
  private server: http.Server | null = null;
  private origin = '';

  /** Starts listening on a free loopback port; answers 201 unless told otherwise. */
  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
        const answer = this.answers.get(path) ?? 201;
        if (answer === 'hang') this.hanging.push(res);
        else res.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** How the stand-in answers pushes to `device` from now on. */
  answer(device: Device, answer: PushAnswer): void {
    this.answers.set(device.path, answer);
  }

  /** A new device of this push service, with its own keys. */
  device(): Device {
    return new Device(this.origin, `/push/${randomBytes(8).toString('hex')}`);
  }

  /** The pushes received for `device`, oldest first. */
  pushesTo(device: Device): ReceivedPush[] {
    return this.received.filter((p) => p.path === device.path);
  }
}

/** A browser's push subscription: the endpoint, and the keys only the device (and the test) hold. */
export class Device {
  private readonly ecdh: ECDH = createECDH('prime256v1');
  private readonly authSecret = randomBytes(16);

  constructor(
    origin: string,
    readonly path: string,
  ) {
    this.ecdh.generateKeys();
    this.endpoint = `${origin}${path}`;
  }

  readonly endpoint: string;

  /** The body of POST /api/me/push-subscriptions, as a browser's `PushSubscription.toJSON()` gives it. */
  subscription(label?: string): { endpoint: string; keys: { p256dh: string; auth: string }; label?: string } {
    return {
      endpoint: this.endpoint,
      keys: {
        p256dh: this.ecdh.getPublicKey().toString('base64url'),
        auth: this.authSecret.toString('base64url'),
      },
      ...(label === undefined ? {} : { label }),
    };
  }

  /** Decrypts a push with the device's private key and auth secret, and parses the payload. */
  read(push: ReceivedPush): PushPayload {
    const plain = decrypt(push.body, { version: 'aes128gcm', privateKey: this.ecdh, authSecret: this.authSecret });
    return JSON.parse(plain.toString('utf8')) as PushPayload;
  }
}
