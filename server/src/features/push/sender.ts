import type * as Http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import { isIP, type LookupFunction } from 'node:net';
import type { CheckedTarget } from './endpoint.js';
import { webpush, type VapidKeys } from './vapid.js';

// `node:http` through require, as links/fetcher.ts does: an ES import of it would load Node's fetch too.
const http = createRequire(import.meta.url)('node:http') as typeof Http;

/**
 * One push to one device. web-push encrypts the payload (RFC 8291, aes128gcm) and signs the
 * request (VAPID); the request itself is sent here rather than by web-push's sendNotification,
 * because it must go to the address that was checked (no second DNS lookup that a rebinding name
 * could turn towards the server's own network) and, in tests, over http to a loopback stand-in.
 */

/** Limits of one push. Exported as a mutable object so tests can shorten the timeout. */
export const pushLimits = {
  /** The whole request, connection included; a slower push service fails the attempt (retried). */
  timeoutMs: 10_000,
  /** How long a push service keeps a push for a device that is off (seconds). */
  ttlSeconds: 24 * 60 * 60,
};

/** The device's subscription as web-push takes it. */
export interface DeviceKeys {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** How the push service answered. */
export type PushOutcome =
  /** Accepted (2xx). */
  | { kind: 'sent' }
  /** The subscription no longer exists (404, 410): forget it. */
  | { kind: 'gone'; status: number }
  /** Anything else (429, 5xx, 4xx): try again later. */
  | { kind: 'failed'; status: number };

/** Sends `payload` to the device at `target` (its checked address). Network errors and the timeout throw. */
export async function sendPush(
  target: CheckedTarget,
  device: DeviceKeys,
  payload: string,
  vapid: VapidKeys & { subject: string },
): Promise<PushOutcome> {
  const details = webpush().generateRequestDetails(
    { endpoint: device.endpoint, keys: { p256dh: device.p256dh, auth: device.auth } },
    payload,
    {
      vapidDetails: vapid,
      TTL: pushLimits.ttlSeconds,
      urgency: 'normal',
      contentEncoding: 'aes128gcm',
    },
  );
  const { url } = target;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all === true) {
      (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    } else {
      callback(null, target.address, target.family);
    }
  };
  const secure = url.protocol === 'https:';
  const options: https.RequestOptions = {
    method: 'POST',
    host,
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: { ...details.headers, 'Content-Length': String(details.body.length) },
    lookup: pinned,
    agent: false,
    signal: AbortSignal.timeout(pushLimits.timeoutMs),
  };
  if (secure && isIP(host) === 0) options.servername = host;
  const status = await new Promise<number>((resolve, reject) => {
    const request = (secure ? https : http).request(options, (response) => {
      // The answer's body says nothing Kith uses; read it away so the socket closes.
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
      response.once('error', reject);
    });
    request.once('error', reject);
    request.end(details.body);
  });
  if (status >= 200 && status < 300) return { kind: 'sent' };
  if (status === 404 || status === 410) return { kind: 'gone', status };
  return { kind: 'failed', status };
}
