import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { MEDIA_COOKIE, readCookie } from '../../http/cookies.js';
import { hmac, safeEqual } from '../../lib/secrets.js';
import { findUserById } from '../users/queries.js';
import type { UserRow } from '../../db/rows.js';

/**
 * The media cookie `kith_media` (docs/api §1.9): lets `<img>` and `<video>` tags, which cannot send
 * `X-AUTH-TOKEN`, load thumbnails. It names the user and their key version, is signed by the server,
 * accepted for 7 days after issue, and read only by the read-only image endpoints.
 */
const MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
const RENEW_AFTER_MS = 24 * 60 * 60 * 1000;

interface MediaGrant {
  userId: string;
  keyVersion: number;
  issuedAt: number;
}

function sign(ctx: AppContext, payload: string): string {
  return hmac(ctx.config.secretKey, `media|${payload}`).slice(0, 32);
}

/** The cookie value for a user at a time: `<userId>.<keyVersion>.<issuedAt>.<signature>`. */
export function mediaCookieValue(ctx: AppContext, user: Pick<UserRow, 'id' | 'api_key_version'>, now: number): string {
  const payload = `${user.id}.${user.api_key_version}.${now}`;
  return `${payload}.${sign(ctx, payload)}`;
}

/**
 * Signing and checking cookies cost an HMAC each, on every answer to a client that keeps no cookies
 * (a script, the benchmark) or sends one back (a browser). Both are pure functions of the secret and
 * the value, so recent results are kept per server: a cookie issued less than a minute ago is given
 * again to the same user and key version, and a value already checked is not checked again (its age
 * still is, at each use). Bounded: emptied when full.
 */
const REISSUE_WITHIN_MS = 60 * 1000;
const MEMO_SIZE = 10_000;

interface CookieMemo {
  issued: Map<string, { keyVersion: number; issuedAt: number; value: string }>;
  checked: Map<string, MediaGrant | null>;
}
const memos = new WeakMap<AppContext, CookieMemo>();

function memoOf(ctx: AppContext): CookieMemo {
  let memo = memos.get(ctx);
  if (memo === undefined) {
    memo = { issued: new Map(), checked: new Map() };
    memos.set(ctx, memo);
  }
  return memo;
}

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.size >= MEMO_SIZE) map.clear();
  map.set(key, value);
}

/** The cookie value to give `user` now: a fresh one, or the one issued to them in the last minute. */
function currentCookieValue(ctx: AppContext, user: Pick<UserRow, 'id' | 'api_key_version'>, now: number): string {
  const { issued } = memoOf(ctx);
  const last = issued.get(user.id);
  if (
    last !== undefined &&
    last.keyVersion === user.api_key_version &&
    now >= last.issuedAt &&
    now - last.issuedAt < REISSUE_WITHIN_MS
  ) {
    return last.value;
  }
  const value = mediaCookieValue(ctx, user, now);
  remember(issued, user.id, { keyVersion: user.api_key_version, issuedAt: now, value });
  return value;
}

/** The signed fields of a cookie value, or null when it is not one this server signed. */
function verifiedGrant(ctx: AppContext, value: string): MediaGrant | null {
  const { checked } = memoOf(ctx);
  const known = checked.get(value);
  if (known !== undefined) return known;
  const grant = verify(ctx, value);
  remember(checked, value, grant);
  return grant;
}

function verify(ctx: AppContext, value: string): MediaGrant | null {
  const parts = value.split('.');
  if (parts.length !== 4) return null;
  const [userId = '', version = '', issued = '', signature = ''] = parts;
  if (!safeEqual(signature, sign(ctx, `${userId}.${version}.${issued}`))) return null;
  const keyVersion = Number(version);
  const issuedAt = Number(issued);
  if (!Number.isSafeInteger(keyVersion) || !Number.isSafeInteger(issuedAt)) return null;
  return { userId, keyVersion, issuedAt };
}

/** Reads a cookie value: a grant when the signature is right and it is under 7 days old, else null. */
export function parseMediaCookie(ctx: AppContext, value: string | undefined, now: number): MediaGrant | null {
  if (value === undefined) return null;
  const grant = verifiedGrant(ctx, value);
  if (grant === null || grant.issuedAt > now || now - grant.issuedAt > MAX_AGE_MS) return null;
  return grant;
}

/**
 * The user a request's media cookie stands for, only while their key has not changed since
 * (resetting the key or deleting the account ends every media cookie).
 */
export async function userFromMediaCookie(ctx: AppContext, request: FastifyRequest): Promise<UserRow | null> {
  const grant = parseMediaCookie(ctx, readCookie(request.headers.cookie, MEDIA_COOKIE), ctx.clock.now());
  if (grant === null) return null;
  const user = await findUserById(ctx.db.kysely, grant.userId);
  return user !== undefined && user.disabled_at === null && user.api_key_version === grant.keyVersion ? user : null;
}

/** Sets a fresh media cookie for `user` on the answer. A session cookie: no Max-Age. */
export function setMediaCookie(
  ctx: AppContext,
  reply: FastifyReply,
  user: Pick<UserRow, 'id' | 'api_key_version'>,
): void {
  const secure = ctx.config.publicUrl.startsWith('https:') ? '; Secure' : '';
  const value = currentCookieValue(ctx, user, ctx.clock.now());
  void reply.header(
    'Set-Cookie',
    `${MEDIA_COOKIE}=${value}; HttpOnly; SameSite=Lax; Path=${ctx.config.basePath}/${secure}`,
  );
}

/** Removes the media cookie (account deleted). */
export function clearMediaCookie(ctx: AppContext, reply: FastifyReply): void {
  void reply.header('Set-Cookie', `${MEDIA_COOKIE}=; Max-Age=0; HttpOnly; SameSite=Lax; Path=${ctx.config.basePath}/`);
}

/**
 * Gives the caller of a header-authenticated request a media cookie when theirs is missing, not
 * theirs, for an older key, or more than a day old.
 */
export function refreshMediaCookie(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): void {
  const user = request.user;
  if (user === null || reply.hasHeader('Set-Cookie')) return;
  const now = ctx.clock.now();
  const grant = parseMediaCookie(ctx, readCookie(request.headers.cookie, MEDIA_COOKIE), now);
  const current =
    grant !== null &&
    grant.userId === user.id &&
    grant.keyVersion === user.api_key_version &&
    now - grant.issuedAt < RENEW_AFTER_MS;
  if (!current) setMediaCookie(ctx, reply, user);
}
