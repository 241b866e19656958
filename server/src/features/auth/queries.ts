import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { UserRow } from '../../db/rows.js';

type Q = Kysely<Database>;

/** Writes a new user row. */
export async function insertUserRow(db: Q, user: UserRow): Promise<void> {
  await db.insertInto('users').values(user).execute();
}

/** How many password reset keys a user was given since `since` (ms). */
export async function countResetKeysSince(db: Q, userId: string, since: number): Promise<number> {
  const row = await db
    .selectFrom('password_reset_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Marks a user's unused reset keys used at `now`; how many it spent. */
export async function spendResetKeys(db: Q, userId: string, now: number): Promise<number> {
  const result = await db
    .updateTable('password_reset_keys')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Stores a new reset key (its hash only). */
export async function insertResetKey(
  db: Q,
  key: { id: string; userId: string; keyHash: string; createdAt: number; expiresAt: number },
): Promise<void> {
  await db
    .insertInto('password_reset_keys')
    .values({
      id: key.id,
      user_id: key.userId,
      key_hash: key.keyHash,
      created_at: key.createdAt,
      expires_at: key.expiresAt,
      used_at: null,
    })
    .execute();
}

/** The unused, unexpired reset key with this hash that belongs to the account `login`, if any. */
export function findValidResetKey(
  db: Q,
  keyHash: string,
  login: string,
  now: number,
): Promise<{ keyId: string; userId: string } | undefined> {
  return db
    .selectFrom('password_reset_keys')
    .innerJoin('users', 'users.id', 'password_reset_keys.user_id')
    .select(['password_reset_keys.id as keyId', 'users.id as userId'])
    .where('password_reset_keys.key_hash', '=', keyHash)
    .where('password_reset_keys.used_at', 'is', null)
    .where('password_reset_keys.expires_at', '>', now)
    .where('users.login', '=', login)
    .executeTakeFirst();
}

/**
 * Stores a user's new API key (and password hash when given), with the next key version, and
 * returns the updated row: three statements, in the caller's transaction.
 */
export async function replaceApiKey(
  db: Q,
  userId: string,
  apiKey: { hash: string; sealed: string },
  passwordHash: string | undefined,
): Promise<UserRow> {
  const current = await db
    .selectFrom('users')
    .select('api_key_version')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  await db
    .updateTable('users')
    .set({
      api_key_hash: apiKey.hash,
      api_key_enc: apiKey.sealed,
      api_key_version: current.api_key_version + 1,
      ...(passwordHash !== undefined ? { password_hash: passwordHash } : {}),
    })
    .where('id', '=', userId)
    .execute();
  return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
}

/**
 * Records that a user was active now (a successful write, docs/api §1.11). Never moves the date
 * back, and leaves alone a row already active within this second (it would show the same): no
 * write, and on PostgreSQL no wait for the row's lock.
 */
export function recordActivityQuery(db: Q, userId: string, now: number) {
  return db
    .updateTable('users')
    .set({ last_activity_date: now })
    .where('id', '=', userId)
    .where('last_activity_date', '<', Math.floor(now / 1000) * 1000);
}

/**
 * Replaces a password hash imported from Zusam by Kith's own, unless the password changed meanwhile
 * (the old hash is part of the condition). True when the row was updated.
 */
export async function replaceImportedPasswordHash(
  db: Q,
  userId: string,
  importedHash: string,
  newHash: string,
): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ password_hash: newHash })
    .where('id', '=', userId)
    .where('password_hash', '=', importedHash)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
