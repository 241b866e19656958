import type { FastifyRequest } from 'fastify';

// The cookies Kith reads besides the key header (docs/api §1.9), named once for the features that
// set and read them and for the OpenAPI document that describes them.

/** A signed-in browser's cookie for pictures and files loaded by URL (set by features/auth). */
export const MEDIA_COOKIE = 'kith_media';
/** A visitor's public-link grants (set by features/grants). */
export const PUBLIC_COOKIE = 'kith_public';

/** The value of one cookie in a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/** Whether the request carries a `kith_public` cookie at all (before any database look-up). */
export function hasPublicCookie(request: FastifyRequest): boolean {
  return readCookie(request.headers.cookie, PUBLIC_COOKIE) !== undefined;
}
