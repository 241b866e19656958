import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { hmac, safeEqual } from '../../lib/secrets.js';
import { PUBLIC_COOKIE, readCookie } from '../../http/cookies.js';
import { urlsInText } from '../../lib/urls.js';
import { findSharedMessages } from './queries.js';

/**
 * The public-link cookie `kith_public` (docs/api §1.9, §6.7). `GET /api/public/{token}` adds a grant
 * for the (message, link) it showed; with it, a visitor without a key may load that message's file
 * metadata, thumbnails, card picture, link preview images and the link previews of URLs in its
 * text. The value is signed by the server and holds at most 10 grants, newest kept; each is
 * accepted for 24 hours, and only while the message still has that very link (revoking or
 * replacing it ends the grant at once). Read only by GET/HEAD `/api/images/…`, `GET /api/files/{id}`
 * and `GET /api/links/by_url`.
 */
export const PUBLIC_GRANT_MS = 24 * 60 * 60 * 1000;
export const MAX_PUBLIC_GRANTS = 10;

export interface PublicGrant {
  messageId: string;
  /** A keyed digest of the public token: a later link of the same message is another link. */
  link: string;
  issuedAt: number;
}

type Keyed = Pick<AppContext, 'config'>;

/** A longer value is not one this server gave (10 grants take about 700 characters). */
const MAX_COOKIE_CHARS = 2000;

const GRANT_SHAPE = /^([0-9a-f-]{36}):([A-Za-z0-9_-]{16}):(\d{1,16})$/;

function sign(ctx: Keyed, payload: string): string {
  return hmac(ctx.config.secretKey, `public|${payload}`).slice(0, 32);
}

/**
 * The tags of the tokens seen lately, per configuration (so per secret). A shared link is opened
 * again and again, and its tag is one of the two HMACs of every public answer.
 */
const recentTags = new WeakMap<Keyed['config'], Map<string, string>>();
const RECENT_TAGS = 1024;

/** The map `store` keeps for this configuration (so for its secret), made empty the first time. */
function keptFor<V>(store: WeakMap<Keyed['config'], Map<string, V>>, ctx: Keyed): Map<string, V> {
  let kept = store.get(ctx.config);
  if (kept === undefined) {
    kept = new Map();
    store.set(ctx.config, kept);
  }
  return kept;
}

/** The digest a grant keeps of a public token (the token itself never goes into the cookie). */
export function linkTag(ctx: Keyed, token: string): string {
  const tags = keptFor(recentTags, ctx);
  let tag = tags.get(token);
  if (tag === undefined) {
    tag = hmac(ctx.config.secretKey, `public-link|${token}`).slice(0, 16);
    if (tags.size >= RECENT_TAGS) tags.clear();
    tags.set(token, tag);
  }
  return tag;
}

/** The cookie value: `<messageId>:<link>:<issuedAt>` joined by `~`, then `.` and the signature. */
export function publicCookieValue(ctx: Keyed, grants: PublicGrant[]): string {
  const payload = grants.map((g) => `${g.messageId}:${g.link}:${g.issuedAt}`).join('~');
  return `${payload}.${sign(ctx, payload)}`;
}

/** The grants of a cookie value that are signed and under 24 hours old; [] for anything else. */
export function parsePublicCookie(ctx: Keyed, value: string | undefined, now: number): PublicGrant[] {
  if (value === undefined || value.length > MAX_COOKIE_CHARS) return [];
  const dot = value.lastIndexOf('.');
  if (dot <= 0) return [];
  const payload = value.slice(0, dot);
  if (!safeEqual(value.slice(dot + 1), sign(ctx, payload))) return [];
  const grants: PublicGrant[] = [];
  for (const part of payload.split('~')) {
    const match = GRANT_SHAPE.exec(part);
    if (match === null) continue;
    const issuedAt = Number(match[3]);
    if (issuedAt > now || now - issuedAt >= PUBLIC_GRANT_MS) continue;
    grants.push({ messageId: match[1] ?? '', link: match[2] ?? '', issuedAt });
  }
  return grants.slice(-MAX_PUBLIC_GRANTS);
}

/** Adds (or renews) the grant for one message: at most 10, the newest kept. */
export function withGrant(existing: PublicGrant[], grant: PublicGrant): PublicGrant[] {
  return [...existing.filter((g) => g.messageId !== grant.messageId), grant].slice(-MAX_PUBLIC_GRANTS);
}

function grantsOf(ctx: AppContext, request: FastifyRequest): PublicGrant[] {
  return parsePublicCookie(ctx, readCookie(request.headers.cookie, PUBLIC_COOKIE), ctx.clock.now());
}

/**
 * The cookie values given lately, by what each was given for (the token, the message, the visitor's
 * cookie as it came), per configuration. A shared link is opened again and again, often by visitors
 * that keep no cookie (a link preview robot, a script), and signing the value was the largest part
 * of a public answer's own work (bench/README.md, issue 23 sixteenth session). The same answer
 * within a minute gives the same value again, as the media cookie does (auth/media-cookie.ts): its
 * grant's 24 hours count from the first of them, so they end at most a minute sooner. Bounded:
 * emptied when full, and a cookie too long to be read is not kept.
 */
const recentCookies = new WeakMap<Keyed['config'], Map<string, { issuedAt: number; value: string }>>();
const RECENT_COOKIES = 512;
const REISSUE_WITHIN_MS = 60 * 1000;

/**
 * The value of `kith_public` that adds a grant for (message, token) at `now` to those of `incoming`,
 * the visitor's cookie value: a fresh one, or the one given for the same within the last minute.
 */
export function grantCookieValue(
  ctx: Keyed,
  incoming: string | undefined,
  messageId: string,
  token: string,
  now: number,
): string {
  const recent = keptFor(recentCookies, ctx);
  const key = `${token}|${messageId}|${incoming ?? ''}`;
  const last = recent.get(key);
  if (last !== undefined && now >= last.issuedAt && now - last.issuedAt < REISSUE_WITHIN_MS) return last.value;
  const grants = withGrant(parsePublicCookie(ctx, incoming, now), {
    messageId,
    link: linkTag(ctx, token),
    issuedAt: now,
  });
  const value = publicCookieValue(ctx, grants);
  if (incoming === undefined || incoming.length <= MAX_COOKIE_CHARS) {
    if (recent.size >= RECENT_COOKIES) recent.clear();
    recent.set(key, { issuedAt: now, value });
  }
  return value;
}

/** Sets `kith_public` with a fresh grant for (message, token) merged into the request's grants. */
export function grantPublicMessage(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  messageId: string,
  token: string,
): void {
  const incoming = readCookie(request.headers.cookie, PUBLIC_COOKIE);
  const value = grantCookieValue(ctx, incoming, messageId, token, ctx.clock.now());
  const secure = ctx.config.publicUrl.startsWith('https:') ? '; Secure' : '';
  void reply.header(
    'Set-Cookie',
    `${PUBLIC_COOKIE}=${value}; HttpOnly; SameSite=Lax; Path=${ctx.config.basePath}/${secure}`,
  );
}

/**
 * The messages the request's grants still open, with their text: each grant is under 24 hours old
 * and its message is not deleted and still has the public link the grant was made for.
 */
export async function grantedMessages(
  ctx: AppContext,
  request: FastifyRequest,
): Promise<{ id: string; text: string | null }[]> {
  if (!ctx.config.publicLinks) return [];
  const grants = grantsOf(ctx, request);
  if (grants.length === 0) return [];
  const ids = grants.map((g) => g.messageId);
  const rows = await findSharedMessages(ctx.db.kysely, ids);
  const links = new Map(grants.map((g) => [g.messageId, g.link]));
  return rows
    .filter((r) => r.public_token !== null && links.get(r.id) === linkTag(ctx, r.public_token))
    .map((r) => ({ id: r.id, text: r.text }));
}

/** Whether `url` is one of the URLs in the text of a granted message (docs/api §7.5). */
export function isUrlGranted(messages: { id: string; text: string | null }[], url: string): boolean {
  return messages.some((m) => urlsInText(m.text).includes(url));
}
