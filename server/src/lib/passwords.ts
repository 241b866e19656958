import { hash, verify, type Algorithm } from '@node-rs/argon2';

// argon2id with the library's defaults (19 MiB, 2 passes): the OWASP baseline, ~20 ms here.
const ALGORITHM_ARGON2ID = 2;

/** Hashes a password with argon2id. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ALGORITHM_ARGON2ID as Algorithm });
}

/** Checks a password against its stored hash; false for any malformed hash. */
export async function verifyPassword(storedHash: string, password: string): Promise<boolean> {
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
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
