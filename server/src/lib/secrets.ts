import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  type KeyObject,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** 256 random bits as 43 base64url characters: API keys, public-link tokens, reset keys. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** SHA-256 hex digest: how API keys and reset keys are stored and looked up. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/**
 * The HMAC key of each secret, made once: a string secret is imported again by every createHmac,
 * and reads sign many values (each picture of a feed, every public answer twice). A process has one
 * secret, tests a few.
 */
const hmacKeys = new Map<string, KeyObject>();

function hmacKey(secret: string): KeyObject {
  let key = hmacKeys.get(secret);
  if (key === undefined) {
    if (hmacKeys.size >= 16) hmacKeys.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    hmacKeys.set(secret, key);
  }
  return key;
}

/** HMAC-SHA-256 as base64url, for signed URLs and tokens. */
export function hmac(secret: string, value: string): string {
  return createHmac('sha256', hmacKey(secret)).update(value).digest('base64url');
}

/** Constant-time comparison of two strings. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Symmetric encryption of short secrets at rest (AES-256-GCM, key derived from the server secret).
 * The API key is kept this way because login must hand the same key back (docs/api §1.2).
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = createHash('sha256').update(`kith-secret-box|${serverSecret}`).digest();
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
  }

  open(sealed: string): string {
    const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    if (iv === undefined || tag === undefined || body === undefined) throw new Error('Malformed sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  }
}
