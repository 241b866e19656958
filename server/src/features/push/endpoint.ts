import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { classifyAddress, refusalReason } from '../links/address.js';
import { ALLOWED_PORTS, checkUrlShape, RefusedUrlError } from '../links/fetcher.js';

/**
 * A subscription's endpoint is a URL the server will call (docs/api §11.9), so it passes the link
 * previews' rules (links/fetcher.ts, links/address.ts): no user name or password, ports
 * 80/443/8080/8443, every address the name resolves to public, checked when the device subscribes
 * and again before each send, and the connection pinned to the checked address. On top of them,
 * https only: push services are all https, and a push carries the user's notifications. The
 * test-only switch (PUSH_ALLOW_LOOPBACK) allows loopback on any port, and over http for loopback
 * only, so tests can run a push service stand-in on 127.0.0.1.
 */

/** The longest endpoint accepted (real ones are a few hundred characters). */
export const ENDPOINT_MAX_LENGTH = 2048;

/** Why an endpoint is refused, for the 400 answer and the logs. */
export class RefusedEndpointError extends Error {
  override readonly name = 'RefusedEndpointError';
}

/** An endpoint's checked address, to connect to and nothing else. */
export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

const bareHost = (url: URL) => (url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname);
const portOf = (url: URL) => (url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);
const isLocalhostName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

/** The checks that need no network. Throws `RefusedEndpointError`. */
export function checkEndpointShape(text: string, allowLoopback: boolean): URL {
  if (text.length > ENDPOINT_MAX_LENGTH) throw new RefusedEndpointError('endpoint too long');
  let url: URL;
  try {
    url = checkUrlShape(text, { allowLoopback });
  } catch (error) {
    if (error instanceof RefusedUrlError) throw new RefusedEndpointError(error.message);
    throw error;
  }
  if (url.protocol === 'http:') {
    const host = bareHost(url);
    const loopback = classifyAddress(host) === 'loopback' || isLocalhostName(host);
    if (!(allowLoopback && loopback)) throw new RefusedEndpointError('https only');
  }
  // An IP literal is decided here, without asking DNS.
  const host = bareHost(url);
  if (isIP(host) !== 0) {
    const reason = refusalReason(host, { allowLoopback });
    if (reason !== null) throw new RefusedEndpointError(`address not allowed (${reason})`);
  }
  return url;
}

/** How long a name may take to resolve before the endpoint counts as unreachable. */
const LOOKUP_TIMEOUT_MS = 5000;

/**
 * The full check: the shape, then every address the host resolves to (a name with one refused
 * address is refused as a whole), and the port and scheme again against the chosen address.
 * Throws `RefusedEndpointError` (refused, or the name does not resolve).
 */
export async function resolveEndpoint(text: string, allowLoopback: boolean): Promise<CheckedTarget> {
  const url = checkEndpointShape(text, allowLoopback);
  const host = bareHost(url);
  const literal = isIP(host);
  let addresses: { address: string; family: 4 | 6 }[];
  if (literal !== 0) {
    addresses = [{ address: host, family: literal as 4 | 6 }];
  } else {
    let timer: NodeJS.Timeout | undefined;
    try {
      const found = await Promise.race([
        dns.lookup(host, { all: true, order: 'verbatim' }),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), LOOKUP_TIMEOUT_MS);
        }),
      ]);
      addresses = found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
    } catch {
      throw new RefusedEndpointError('host not found');
    } finally {
      clearTimeout(timer);
    }
  }
  const chosen = addresses[0];
  if (chosen === undefined) throw new RefusedEndpointError('host not found');
  for (const { address } of addresses) {
    const reason = refusalReason(address, { allowLoopback });
    if (reason !== null) throw new RefusedEndpointError(`address not allowed (${reason})`);
  }
  const loopback = classifyAddress(chosen.address) === 'loopback';
  if (!ALLOWED_PORTS.has(portOf(url)) && !(allowLoopback && loopback))
    throw new RefusedEndpointError('port not allowed');
  if (url.protocol === 'http:' && !(allowLoopback && loopback)) throw new RefusedEndpointError('https only');
  return { url, address: chosen.address, family: chosen.family };
}
