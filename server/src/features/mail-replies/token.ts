import { createHmac, randomBytes } from 'node:crypto';
import type { MailRepliesConfig } from '../../config.js';
import { safeEqual } from '../../lib/secrets.js';

/**
 * Reply tokens (docs/api §11.11): `<id><signature>`, 32 characters of lowercase base32 (a–z, 2–7),
 * so `reply+<token>@domain` fits the 64 characters of an address's local part and survives a mail
 * server that lowercases it. The id (80 random bits) names a `reply_addresses` row, which holds the
 * user, the message and the expiry; the signature (80 bits of HMAC-SHA-256 with the server secret)
 * lets a forged or mistyped token be refused before any database read.
 */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const ID_BYTES = 10;
const SIGNATURE_BYTES = 10;
/** Characters of the id, and of the signature: 10 bytes are exactly 16 base32 characters. */
const PART_LENGTH = 16;
const TOKEN = /^[a-z2-7]{32}$/;

/** Lowercase RFC 4648 base32 without padding, for byte counts that are a multiple of 5. */
function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return out;
}

function signature(secret: string, id: string): string {
  return base32(createHmac('sha256', secret).update(`reply-address|${id}`).digest().subarray(0, SIGNATURE_BYTES));
}

/** A new reply address id: 80 random bits, 16 base32 characters. */
export function newReplyAddressId(): string {
  return base32(randomBytes(ID_BYTES));
}

/** The token of the reply address `id`. */
export function replyToken(secret: string, id: string): string {
  return `${id}${signature(secret, id)}`;
}

/** The id a token names when its signature is right (compared in constant time), else null. */
export function readReplyToken(secret: string, token: string): string | null {
  const lower = token.toLowerCase();
  if (!TOKEN.test(lower)) return null;
  const id = lower.slice(0, PART_LENGTH);
  return safeEqual(lower.slice(PART_LENGTH), signature(secret, id)) ? id : null;
}

/** `reply+<token>@domain` for `REPLY_EMAIL=reply@domain`. */
export function replyAddress(config: Pick<MailRepliesConfig, 'localPart' | 'domain'>, token: string): string {
  return `${config.localPart}+${token}@${config.domain}`;
}

/**
 * The token of a recipient address when it has the shape of a reply address (`<local>+<32
 * characters>@…`, any case, any domain: the mail server chose to deliver it here), else null.
 * The signature is not checked here.
 */
export function tokenOfAddress(config: Pick<MailRepliesConfig, 'localPart'>, address: string): string | null {
  const at = address.lastIndexOf('@');
  const local = (at < 0 ? address : address.slice(0, at))
    .trim()
    .replace(/^<|^"|"$/g, '')
    .toLowerCase();
  const prefix = `${config.localPart}+`;
  if (!local.startsWith(prefix)) return null;
  const token = local.slice(prefix.length);
  return TOKEN.test(token) ? token : null;
}
