import { createHmac } from 'node:crypto';
import { safeEqual } from '../../lib/secrets.js';

/** Signed names live 12 to 24 hours: the end of the current 12-hour window plus 12 hours (§1.9). */
const WINDOW_SECONDS = 12 * 60 * 60;

/** The expiry of names handed out at `nowMs`: every answer of one window carries the same URL. */
export function expiryFor(nowMs: number): number {
  const now = Math.floor(nowMs / 1000);
  return (Math.floor(now / WINDOW_SECONDS) + 1) * WINDOW_SECONDS + WINDOW_SECONDS;
}

/** HMAC-SHA-256 of `<fileId>.<ext>|<exp>` with the server secret, cut to 128 bits: 22 base64url characters. */
export function signatureOf(secret: string, name: string, exp: number): string {
  return createHmac('sha256', secret).update(`${name}|${exp}`).digest().subarray(0, 16).toString('base64url');
}

/** `<fileId>.<ext>?exp=<seconds>&sig=<signature>`, to append to `<base>/files/` (docs/api §1.9). */
export function contentUrl(secret: string, fileId: string, ext: string, nowMs: number): string {
  const name = `${fileId}.${ext}`;
  const exp = expiryFor(nowMs);
  return `${name}?exp=${exp}&sig=${signatureOf(secret, name, exp)}`;
}

/** Checks a signed name: `bad` (wrong or missing signature), `expired`, or `ok`. */
export function checkSignature(
  secret: string,
  name: string,
  exp: unknown,
  sig: unknown,
  nowMs: number,
): 'ok' | 'bad' | 'expired' {
  // Query values arrive as they were sent: missing, a string, or several strings.
  if (typeof exp !== 'string' || typeof sig !== 'string' || !/^\d{1,12}$/.test(exp)) return 'bad';
  if (!safeEqual(sig, signatureOf(secret, name, Number(exp)))) return 'bad';
  return Number(exp) * 1000 <= nowMs ? 'expired' : 'ok';
}

/** Mail pictures stay visible this long after the mail was sent (then the mail program shows none). */
export const MAIL_IMAGE_TTL_SECONDS = 30 * 24 * 60 * 60;

/** What a signed image URL signs: the picture's kind, size and file, not the file's bytes. */
function imageName(type: string, w: string | number, h: string | number, fileId: string): string {
  return `image/${type}/${w}/${h}/${fileId}`;
}

/**
 * `<PUBLIC_URL>/api/images/crop/<w>/<h>/<id>?exp=&sig=`: a picture a mail program can load without
 * a login (digests). It opens only that size of that file, for 30 days; the expiry is rounded up to
 * the day so the mails of one day share one URL.
 */
export function signedImageUrl(
  secret: string,
  publicUrl: string,
  image: { type: 'crop' | 'thumbnail'; w: number; h: number },
  fileId: string,
  nowMs: number,
): string {
  const day = 24 * 60 * 60;
  const exp = Math.ceil((Math.floor(nowMs / 1000) + MAIL_IMAGE_TTL_SECONDS) / day) * day;
  const sig = signatureOf(secret, imageName(image.type, image.w, image.h, fileId), exp);
  return `${publicUrl}/api/images/${image.type}/${image.w}/${image.h}/${fileId}?exp=${exp}&sig=${sig}`;
}

/** Checks the `exp` and `sig` of a signed image URL for this picture. */
export function checkImageSignature(
  secret: string,
  params: { type: string; w: string; h: string; id: string },
  exp: unknown,
  sig: unknown,
  nowMs: number,
): 'ok' | 'bad' | 'expired' {
  return checkSignature(secret, imageName(params.type, params.w, params.h, params.id), exp, sig, nowMs);
}
