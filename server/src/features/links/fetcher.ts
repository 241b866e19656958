import { promises as dns } from 'node:dns';
import type * as Http from 'node:http';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { classifyAddress, refusalReason } from './address.js';
import { HTML_READ_BUDGET } from './parse.js';

// `node:http` through require: an ES import of it builds its whole namespace, whose getters load
// Node's fetch (undici) as well, 4 MB of every server's heap for something Kith never calls.
const http = createRequire(import.meta.url)('node:http') as typeof Http;

/**
 * The one way Kith fetches a remote URL for a link preview (docs/api §7.5, fetch rules): http(s)
 * only, no user name or password, ports 80/443/8080/8443, every resolved address checked
 * (`address.ts`) and the connection pinned to that checked address (so DNS rebinding cannot switch
 * it), at most 5 redirects each checked again, 5 s to connect, 10 s in total, a capped body, a fixed
 * User-Agent and no cookies.
 */

/** Limits of one preview. Exported as a mutable object so tests can shorten the timeouts. */
export const linkFetchLimits = {
  maxRedirects: 5,
  connectTimeoutMs: 5_000,
  totalTimeoutMs: 10_000,
  /**
   * Only what the parser reads (parse.ts): the contract's cap is 2 MiB, and bytes past the budget
   * would be downloaded for nothing.
   */
  maxHtmlBytes: HTML_READ_BUDGET,
  /** oEmbed answers are small JSON documents. */
  maxJsonBytes: 256 * 1024,
};

export const ALLOWED_PORTS: ReadonlySet<number> = new Set([80, 443, 8080, 8443]);

/** A fixed identity (docs/api §7.5): names Kith, carries no cookie and no credential. */
export const USER_AGENT = 'Mozilla/5.0 (compatible; Kith link preview; +https://kith.invalid/bot)';

/** The URL, or one of its redirects, breaks the fetch rules: the endpoint answers 400 `invalid_url`. */
export class RefusedUrlError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RefusedUrlError';
  }
}

/** The remote side failed (timeout, HTTP error, connection refused …): a 200 with `data.exception`. */
export class RemoteFetchError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RemoteFetchError';
  }
}

export interface FetchOptions {
  /** Test-only switch: loopback addresses (any port) are allowed. */
  allowLoopback: boolean;
  /** Aborts everything (the preview's overall deadline). */
  signal: AbortSignal;
  /**
   * How many bytes of the body to read for this content type (lowercased, without parameters), or 0
   * to read none. The body is cut at that size without failing.
   */
  bodyLimit: (mediaType: string) => number;
}

export interface FetchResult {
  /** The URL of the last hop (after redirects). */
  url: URL;
  status: number;
  /** The `Content-Type` header values, as sent. */
  contentTypes: string[];
  /** The media type, lowercased, without parameters ('' when absent). */
  mediaType: string;
  /** The (decompressed) body read, `null` when `bodyLimit` said 0. */
  body: Buffer | null;
  /** True when the body was cut at the limit. */
  truncated: boolean;
}

/** `localhost` and `*.localhost` always mean this machine (RFC 6761): refused without asking DNS. */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

function isLoopbackLiteral(hostname: string): boolean {
  return isLocalhostName(hostname) || classifyAddress(hostname) === 'loopback';
}

/** The URL's host without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/**
 * The checks that need no network: a parsable http(s) URL without user name or password, on an
 * allowed port (or any port of a loopback literal when the test switch is on). Throws
 * `RefusedUrlError`.
 */
export function checkUrlShape(text: string, options: { allowLoopback: boolean }): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RefusedUrlError('malformed URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefusedUrlError('scheme not allowed');
  if (url.username !== '' || url.password !== '') throw new RefusedUrlError('credentials in URL');
  if (url.hostname === '') throw new RefusedUrlError('no host');
  const port = portOf(url);
  // With the test switch, a name on another port may still resolve to loopback: decided after the
  // lookup (resolveChecked). An IP literal is decided here, without any network.
  const host = bareHost(url);
  const maybeLoopback = isLoopbackLiteral(host) || isIP(host) === 0;
  if (!ALLOWED_PORTS.has(port) && !(options.allowLoopback && maybeLoopback)) {
    throw new RefusedUrlError('port not allowed');
  }
  if (!options.allowLoopback && isLocalhostName(bareHost(url)))
    throw new RefusedUrlError('address not allowed (loopback)');
  return url;
}

interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves the host and checks every address; the first one is the one connected to. */
async function resolveChecked(url: URL, options: FetchOptions): Promise<CheckedAddress> {
  const host = bareHost(url);
  let addresses: CheckedAddress[];
  const literal = isIP(host);
  if (literal !== 0) {
    addresses = [{ address: host, family: literal as 4 | 6 }];
  } else {
    let found: { address: string; family: number }[];
    try {
      found = await abortable(dns.lookup(host, { all: true, order: 'verbatim' }), options.signal);
    } catch (error) {
      if (error instanceof RemoteFetchError) throw error;
      throw new RemoteFetchError('host not found');
    }
    addresses = found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  }
  if (addresses.length === 0) throw new RemoteFetchError('host not found');
  // A name with any refused address is refused as a whole: no picking the "good" one of a mixed set.
  for (const { address } of addresses) {
    const reason = refusalReason(address, options);
    if (reason !== null) throw new RefusedUrlError(`address not allowed (${reason})`);
  }
  const chosen = addresses[0] as CheckedAddress;
  if (!ALLOWED_PORTS.has(portOf(url)) && !(options.allowLoopback && classifyAddress(chosen.address) === 'loopback')) {
    throw new RefusedUrlError('port not allowed');
  }
  return chosen;
}

/** Waits for a promise unless the signal fires first (the promise itself keeps running). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new RemoteFetchError('timeout');
}

/** A short, log- and user-safe reason for a network error. */
function describeNetworkError(error: unknown): RemoteFetchError {
  if (error instanceof RemoteFetchError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return new RemoteFetchError('connection refused');
    case 'ECONNRESET':
    case 'EPIPE':
      return new RemoteFetchError('connection reset');
    case 'ETIMEDOUT':
    case 'ABORT_ERR':
      return new RemoteFetchError('timeout');
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new RemoteFetchError('host unreachable');
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_HEADER_OVERFLOW':
      return new RemoteFetchError('invalid HTTP answer');
    default:
      if (
        typeof code === 'string' &&
        (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL'))
      )
        return new RemoteFetchError('TLS error');
      return new RemoteFetchError('fetch failed');
  }
}

/** One request to a checked address; resolves with the response head. */
async function requestOnce(url: URL, options: FetchOptions): Promise<IncomingMessage> {
  const target = await resolveChecked(url, options);
  const host = bareHost(url);
  // Every lookup of this request answers the address that was checked: no second resolution.
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all === true) {
      (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    } else {
      callback(null, target.address, target.family);
    }
  };
  const secure = url.protocol === 'https:';
  const requestOptions: https.RequestOptions = {
    method: 'GET',
    host,
    port: portOf(url),
    path: `${url.pathname}${url.search}`,
    headers: {
      'User-Agent': USER_AGENT,
      Accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5',
      'Accept-Encoding': 'gzip, deflate, br',
      'Accept-Language': 'en;q=0.8, *;q=0.5',
    },
    lookup: pinned,
    agent: false,
    signal: options.signal,
  };
  // SNI carries the name (never an IP literal); the Host header comes from `host` and `port`.
  if (secure && isIP(host) === 0) requestOptions.servername = host;

  return new Promise<IncomingMessage>((resolve, reject) => {
    const request = (secure ? https : http).request(requestOptions);
    const connectTimer = setTimeout(() => {
      request.destroy(new RemoteFetchError('connect timeout'));
    }, linkFetchLimits.connectTimeoutMs);
    request.once('socket', (socket) => {
      const connected = () => clearTimeout(connectTimer);
      if (!socket.connecting) connected();
      else socket.once(secure ? 'secureConnect' : 'connect', connected);
    });
    request.once('response', (response) => {
      clearTimeout(connectTimer);
      resolve(response);
    });
    request.once('error', (error) => {
      clearTimeout(connectTimer);
      reject(options.signal.aborted ? abortReason(options.signal) : describeNetworkError(error));
    });
    request.end();
  });
}

function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return response.pipe(zlib.createInflate());
  if (encoding === 'br') return response.pipe(zlib.createBrotliDecompress());
  return response;
}

/** Reads up to `limit` bytes of the (decoded) body, then stops reading and closes the connection. */
async function readCapped(
  response: IncomingMessage,
  limit: number,
  signal: AbortSignal,
): Promise<{ body: Buffer; truncated: boolean }> {
  const stream = decoded(response);
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  const onAbort = () => {
    response.destroy();
    stream.destroy();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const chunk of stream) {
      const buffer = chunk as Buffer;
      if (size + buffer.length > limit) {
        // Past the cap: keep what fits and stop reading (the connection is closed below).
        chunks.push(buffer.subarray(0, limit - size));
        size = limit;
        truncated = true;
        break;
      }
      chunks.push(buffer);
      size += buffer.length;
    }
  } catch (error) {
    if (signal.aborted) throw abortReason(signal);
    if (size === 0) throw describeNetworkError(error);
    // A connection that breaks after some HTML still gives a usable page.
    truncated = true;
  } finally {
    signal.removeEventListener('abort', onAbort);
    response.destroy();
    stream.destroy();
  }
  if (signal.aborted) throw abortReason(signal);
  return { body: Buffer.concat(chunks, size), truncated };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches `text` under the rules above. Throws `RefusedUrlError` when the URL or a redirect breaks
 * them, `RemoteFetchError` for every remote failure (including a non-2xx answer).
 */
export async function safeFetch(text: string, options: FetchOptions): Promise<FetchResult> {
  let url = checkUrlShape(text, options);
  for (let hop = 0; ; hop += 1) {
    const response = await requestOnce(url, options);
    const status = response.statusCode ?? 0;
    if (REDIRECTS.has(status)) {
      const location = response.headers.location;
      response.destroy();
      if (location === undefined || location === '') throw new RemoteFetchError(`HTTP ${status} without location`);
      if (hop >= linkFetchLimits.maxRedirects) throw new RemoteFetchError('too many redirects');
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new RemoteFetchError('invalid redirect');
      }
      // Every hop is checked again; a refused one makes the whole request refused.
      url = checkUrlShape(next.href, options);
      continue;
    }
    if (status < 200 || status > 299) {
      response.destroy();
      throw new RemoteFetchError(`HTTP ${status}`);
    }
    const header = response.headers['content-type'];
    const contentTypes = header === undefined ? [] : [header];
    const mediaType = (header ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
    const limit = options.bodyLimit(mediaType);
    if (limit <= 0) {
      response.destroy();
      return { url, status, contentTypes, mediaType, body: null, truncated: false };
    }
    const { body, truncated } = await readCapped(response, limit, options.signal);
    return { url, status, contentTypes, mediaType, body, truncated };
  }
}
