import { createHash } from 'node:crypto';
import { hash, verify, type Algorithm } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';

// argon2id with the library's defaults (19 MiB, 2 passes): the OWASP baseline, ~20 ms here.
const ALGORITHM_ARGON2ID = 2;

/** The start of every hash Kith makes itself (argon2id, 19 MiB, 2 passes, 1 lane). */
const KITH_HASH_PREFIX = '$argon2id$v=19$m=19456,t=2,p=1$';

/** Symfony refuses longer passwords before hashing anything (docs/zusam-data §6). */
const MAX_IMPORTED_PASSWORD_BYTES = 4096;

/** bcrypt reads at most this many bytes; Symfony hashes longer passwords first (below). */
const BCRYPT_MAX_BYTES = 72;

/** Hashes a password with argon2id. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ALGORITHM_ARGON2ID as Algorithm });
}

/** True for a bcrypt hash in any of its prefixes ($2y$ of PHP, $2a$, $2b$). */
function isBcrypt(storedHash: string): boolean {
  return /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(storedHash);
}

/**
 * Checks a password the way Symfony's password hasher did for hashes imported from Zusam: bcrypt
 * sees `base64(sha512(password))` when the password is over 72 bytes or holds a NUL byte.
 * bcryptjs's asynchronous compare works in slices, so a cost-13 hash does not hold the event loop.
 */
async function verifyBcrypt(storedHash: string, password: string): Promise<boolean> {
  const bytes = Buffer.byteLength(password, 'utf8');
  if (bytes > MAX_IMPORTED_PASSWORD_BYTES) return false;
  const input =
    bytes > BCRYPT_MAX_BYTES || password.includes('\0')
      ? createHash('sha512').update(password, 'utf8').digest('base64')
      : password;
  // PHP's $2y$ is the same algorithm as $2b$.
  return bcrypt.compare(input, storedHash.replace(/^\$2y\$/, '$2b$'));
}

/**
 * Checks a password against its stored hash; false for any malformed hash (and for the empty hash
 * of an imported Zusam bot account). Kith's own hashes and imported argon2 ones are argon2; imported
 * Zusam hashes may also be bcrypt.
 */
export async function verifyPassword(storedHash: string, password: string): Promise<boolean> {
  if (storedHash === '' || password === '') return false;
  try {
    if (isBcrypt(storedHash)) return await verifyBcrypt(storedHash, password);
    if (!storedHash.startsWith(KITH_HASH_PREFIX) && Buffer.byteLength(password, 'utf8') > MAX_IMPORTED_PASSWORD_BYTES)
      return false;
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}

/** True when a stored hash is not one Kith makes (an imported Zusam hash): replaced at the next login. */
export function needsRehash(storedHash: string): boolean {
  return !storedHash.startsWith(KITH_HASH_PREFIX);
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same time as a real check when the login is unknown, so response times do not reveal
 * which accounts exist (docs/api §1.6).
 */
export async function verifyDummyPassword(password: string): Promise<false> {
  dummyHash ??= hashPassword('kith-dummy-password-for-timing');
  await verifyPassword(await dummyHash, password);
  return false;
}
