import type { AppContext } from '../../context.js';
import { randomToken, sha256 } from '../../lib/secrets.js';

/** A fresh API key (256 random bits, 43 base64url characters) with its stored forms. */
export function newApiKey(ctx: AppContext): { key: string; hash: string; sealed: string } {
  const key = randomToken();
  return { key, hash: sha256(key), sealed: ctx.secretBox.seal(key) };
}

/** The stored hash of a key sent in `X-AUTH-TOKEN`; imported Zusam keys (UUIDs) hash the same way. */
export function apiKeyHash(key: string): string {
  return sha256(key);
}
