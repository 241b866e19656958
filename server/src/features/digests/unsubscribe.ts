import { createHmac } from 'node:crypto';
import { safeEqual } from '../../lib/secrets.js';

/** A digest's unsubscribe link works for 90 days after it was sent (docs/api §3.6). */
export const UNSUBSCRIBE_TTL_SECONDS = 90 * 24 * 60 * 60;

function signature(secret: string, userId: string, exp: number): string {
  return createHmac('sha256', secret).update(`stop-emails|${userId}|${exp}`).digest('base64url');
}

/**
 * `<exp>.<sig>` (docs/api §3.6): needs no storage, and can do nothing but turn e-mails off, so it
 * stays valid across API key resets.
 */
export function unsubscribeToken(secret: string, userId: string, nowMs: number): string {
  const exp = Math.floor(nowMs / 1000) + UNSUBSCRIBE_TTL_SECONDS;
  return `${exp}.${signature(secret, userId, exp)}`;
}

/** True when `token` was made by `unsubscribeToken` for this user and has not expired. */
export function checkUnsubscribeToken(secret: string, userId: string, token: string, nowMs: number): boolean {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (match === null) return false;
  const exp = Number(match[1]);
  return safeEqual(match[2] ?? '', signature(secret, userId, exp)) && exp * 1000 > nowMs;
}

/** The page a digest links to, and the API URL its `List-Unsubscribe` header names (§3.6). */
export function unsubscribeUrls(publicUrl: string, userId: string, token: string): { page: string; api: string } {
  const tail = `stop-notification-emails/${encodeURIComponent(userId)}/${encodeURIComponent(token)}`;
  return { page: `${publicUrl}/${tail}`, api: `${publicUrl}/api/${tail}` };
}
