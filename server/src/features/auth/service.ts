import { LIMITS, isValidNewPassword, nameFromEmail, normalizeEmail, normalizeName } from '@kith/common';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/database.js';
import { transaction, type Tx } from '../../db/transaction.js';
import type { Body } from '../../lib/body.js';
import { ApiError, missingField } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { hashPassword, needsRehash, verifyDummyPassword, verifyPassword } from '../../lib/passwords.js';
import { randomToken, sha256 } from '../../lib/secrets.js';
import { addMember } from '../groups/service.js';
import { findGroupBySecretKey } from '../groups/queries.js';
import { findUserById, findUserByLogin } from '../users/queries.js';
import { accountDisabled } from '../../http/caller.js';
import type { UserRow } from '../../db/rows.js';
import { newApiKey } from './api-keys.js';
import {
  countResetKeysSince,
  findValidResetKey,
  insertResetKey,
  insertUserRow,
  replaceApiKey,
  replaceImportedPasswordHash,
  spendResetKeys,
} from './queries.js';
import { Throttle } from '../../lib/throttles.js';
import { passwordChangedMail, passwordResetMail } from './mails.js';
import { queueMail } from '../../mail/queue.js';

// Texts on these endpoints contain no ':' (the 0.5.6 client would cut them, docs/api §1.5).
const INVALID_CREDENTIALS = 'Invalid login/password';
const invalidCredentials = () => new ApiError(401, 'invalid_credentials', INVALID_CREDENTIALS);
const invalidPassword = () =>
  new ApiError(
    400,
    'invalid_password',
    `The password must be ${LIMITS.passwordMin} to ${LIMITS.passwordMax} characters long`,
    'password',
  );
const invalidName = () =>
  new ApiError(400, 'invalid_name', 'The name must be 1 to 128 characters, without < > or control characters', 'name');
const invalidEmail = () => new ApiError(400, 'invalid_email', 'This e-mail address is not valid', 'login');
/** An answer that signs someone in, with the user it is for (the route sets their media cookie). */
export interface SignedIn<T> {
  answer: T;
  user: Pick<UserRow, 'id' | 'api_key_version'>;
}

const invalidResetKey = () =>
  new ApiError(400, 'invalid_reset_key', 'This password reset link is not valid any more', 'key');
const RESET_KEY_TTL_MS = 60 * 60 * 1000;

/** The user's API key in clear, to hand back at login (docs/api §1.2). */
function apiKeyOf(ctx: AppContext, user: UserRow): string {
  return ctx.secretBox.open(user.api_key_enc);
}

/**
 * Checks a password the way login does, with login's throttles: failures count per login and
 * address and per login, unknown logins exactly like known ones (docs/api §1.6).
 */
async function checkCredentials(
  ctx: AppContext,
  user: UserRow | undefined,
  login: string,
  password: string,
  ip: string,
): Promise<UserRow> {
  const perLoginAndIp = new Throttle(ctx.limiter, 'loginFailuresPerLoginAndIp', `${login}|${ip}`);
  const perLogin = new Throttle(ctx.limiter, 'loginFailuresPerLogin', login);
  // Counted as failures before the (slow) check, each in one atomic step with its limit check, so
  // parallel guesses cannot slip past the limit; a success takes them back.
  await perLoginAndIp.take();
  try {
    await perLogin.take();
  } catch (error) {
    await perLoginAndIp.undo();
    throw error;
  }
  const ok =
    user !== undefined && password.length <= LIMITS.loginPasswordMax
      ? await verifyPassword(user.password_hash, password)
      : await verifyDummyPassword(password);
  if (!ok || user === undefined) throw invalidCredentials();
  await perLoginAndIp.reset();
  await perLogin.undo();
  // Said only to whom knows the password, so it tells nobody else the account exists.
  if (user.disabled_at !== null) throw accountDisabled(403);
  // A hash imported from Zusam (bcrypt, or argon2 with Zusam's settings) is replaced by Kith's own
  // once the password is known: the first successful login after the move.
  if (needsRehash(user.password_hash)) {
    const rehashed = await hashPassword(password);
    if (await replaceImportedPasswordHash(ctx.db.kysely, user.id, user.password_hash, rehashed))
      return { ...user, password_hash: rehashed };
  }
  return user;
}

/** POST /api/login */
export async function login(ctx: AppContext, body: Body, ip: string): Promise<SignedIn<{ api_key: string }>> {
  const rawLogin = body.requiredString('login', 'Login cannot be empty');
  const password = body.string('password');
  if (password === undefined || password === '') throw missingField('password', 'Password cannot be empty');
  await new Throttle(ctx.limiter, 'loginAttemptsPerIp', ip).take();
  const loginName = rawLogin.trim().toLowerCase();
  const user = await findUserByLogin(ctx.db.kysely, loginName);
  const checked = await checkCredentials(ctx, user, loginName, password, ip);
  return { answer: { api_key: apiKeyOf(ctx, checked) }, user: checked };
}

/** POST /api/signup, with the contract's order of checks (§3.3). */
export async function signup(
  ctx: AppContext,
  body: Body,
  ip: string,
): Promise<SignedIn<{ api_key: string; group: string }>> {
  await new Throttle(ctx.limiter, 'signupPerIp', ip).take();
  const rawLogin = body.requiredString('login', 'Login cannot be empty');
  const password = body.string('password');
  if (password === undefined || password === '') throw missingField('password', 'Password cannot be empty');
  const inviteKey = body.string('invite_key');
  if (inviteKey === undefined || inviteKey.trim() === '') {
    throw new ApiError(400, 'invite_key_required', 'You need an invitation to sign up', 'invite_key');
  }
  const group = await findGroupBySecretKey(ctx.db.kysely, inviteKey.trim());
  if (group === undefined) throw new ApiError(400, 'invalid_invite_key', 'Invalid invite key', 'invite_key');
  const loginName = normalizeEmail(rawLogin);
  if (loginName === null) throw invalidEmail();

  // "Log in through an invitation": the password is checked exactly like a login attempt.
  const joinExisting = async (existing: UserRow) => {
    const user = await checkCredentials(ctx, existing, loginName, password, ip);
    await transaction(ctx, (tx, effects) => addMember(tx, effects, group, user, ctx.clock.now(), { notify: true }));
    return { answer: { api_key: apiKeyOf(ctx, user), group: group.id }, user };
  };

  const existing = await findUserByLogin(ctx.db.kysely, loginName);
  if (existing !== undefined) return joinExisting(existing);

  if (!isValidNewPassword(password)) throw invalidPassword();
  // The name is a new account's only (an existing login keeps its own). Blank or absent: the
  // part of the address before @, as before the field existed (docs/api §3.3).
  const rawName = body.string('name');
  let name = nameFromEmail(loginName);
  if (rawName !== undefined && rawName.trim() !== '') {
    const chosen = normalizeName(rawName);
    if (chosen === null) throw invalidName();
    name = chosen;
  }
  const passwordHash = await hashPassword(password);
  const key = newApiKey(ctx);
  try {
    const user = await transaction(ctx, async (tx, effects) => {
      const inserted = await insertUser(tx, {
        login: loginName,
        name,
        passwordHash,
        apiKey: key,
        notificationEmails: ctx.config.defaultNotificationEmails,
        now: ctx.clock.now(),
      });
      await addMember(tx, effects, group, inserted, ctx.clock.now(), { notify: true });
      return inserted;
    });
    return { answer: { api_key: key.key, group: group.id }, user };
  } catch (error) {
    // Two signups of the same new login at once: the loser is an existing login after all.
    const winner = isUniqueViolation(error) ? await findUserByLogin(ctx.db.kysely, loginName) : undefined;
    if (winner === undefined) throw error;
    return joinExisting(winner);
  }
}

/** Inserts a user row; shared by signup and the admin CLI so both make the same accounts. */
export async function insertUser(
  tx: Tx,
  input: {
    login: string;
    name: string;
    passwordHash: string;
    apiKey: { hash: string; sealed: string };
    notificationEmails: string | null;
    now: number;
  },
): Promise<UserRow> {
  const user: UserRow = {
    id: newId(),
    login: input.login,
    name: input.name,
    password_hash: input.passwordHash,
    api_key_hash: input.apiKey.hash,
    api_key_enc: input.apiKey.sealed,
    api_key_version: 1,
    avatar_id: null,
    default_group_id: null,
    notification_emails: input.notificationEmails,
    lang: null,
    theme: null,
    default_page: null,
    push_notifications: null,
    quiet_hours: null,
    time_zone: null,
    push_cursor: null,
    mention_emails: null,
    created_at: input.now,
    last_activity_date: input.now,
    storage_bytes: 0,
    storage_reserved: 0,
    disabled_at: null,
    notifications_read_until: null,
  };
  await insertUserRow(tx, user);
  return user;
}

/**
 * POST /api/password-reset-mail (docs/api §3.4). The answer is the same whether or not the account
 * exists; the mail is sent after the request, so timing reveals nothing either.
 */
export async function requestPasswordReset(ctx: AppContext, body: Body, ip: string): Promise<Record<string, never>> {
  await new Throttle(ctx.limiter, 'resetMailPerIp', ip).take();
  if (!ctx.config.allowEmail) throw new ApiError(503, 'email_disabled', 'This instance does not send e-mails');
  const mail = body.requiredString('mail', 'The e-mail address is required').trim().toLowerCase();

  await transaction(ctx, async (tx, effects) => {
    const user = await findUserByLogin(tx, mail);
    // A disabled account gets no reset mail: a new password would not let it in.
    if (user === undefined || user.disabled_at !== null) return;
    const now = ctx.clock.now();
    const recent = await countResetKeysSince(tx, user.id, now - 60 * 60 * 1000);
    if (recent >= 3) return; // 3 mails per account and hour; later requests send nothing.
    await spendResetKeys(tx, user.id, now);
    const key = randomToken();
    await insertResetKey(tx, {
      id: newId(),
      userId: user.id,
      keyHash: sha256(key),
      createdAt: now,
      expiresAt: now + RESET_KEY_TTL_MS,
    });
    const link = `${ctx.config.publicUrl}/password-reset?mail=${encodeURIComponent(user.login)}&key=${encodeURIComponent(key)}`;
    await queueMail(ctx, effects, passwordResetMail(ctx.config, user, link));
  });
  return {};
}

/** POST /api/new-password (docs/api §3.5): replaces the password, spends the keys, rotates the API key. */
export async function resetPassword(ctx: AppContext, body: Body, ip: string): Promise<SignedIn<{ api_key: string }>> {
  const failures = new Throttle(ctx.limiter, 'newPasswordFailuresPerIp', ip);
  await failures.check();
  const mail = body.requiredString('mail', 'The e-mail address is required').trim().toLowerCase();
  const key = body.requiredString('key', 'The reset key is required');
  const password = body.string('password');
  if (password === undefined || password === '') throw missingField('password', 'Password cannot be empty');
  if (!isValidNewPassword(password)) throw invalidPassword();

  const now = ctx.clock.now();
  // Counted before the lookup, atomically with the limit, so parallel guesses cannot slip past it;
  // a success takes it back.
  await failures.take();
  const found = await findValidResetKey(ctx.db.kysely, sha256(key), mail, now);
  if (found === undefined) throw invalidResetKey();
  await failures.undo();
  const owner = await findUserById(ctx.db.kysely, found.userId);
  if (owner !== undefined && owner.disabled_at !== null) throw accountDisabled(403);

  const passwordHash = await hashPassword(password);
  const apiKey = newApiKey(ctx);
  const user = await transaction(ctx, async (tx, effects) => {
    // Spend the key inside the transaction; a second request with the same key finds nothing.
    if ((await spendResetKeys(tx, found.userId, now)) === 0) throw invalidResetKey();
    const rotated = await rotateApiKey(tx, found.userId, apiKey, { passwordHash, now });
    await queueMail(ctx, effects, passwordChangedMail(ctx.config, rotated));
    // The old key is dead: its live streams end too (docs/api §4.5, §11.4).
    effects.publish({ type: 'disconnect', userId: rotated.id });
    return rotated;
  });
  return { answer: { api_key: apiKey.key }, user };
}

/** Replaces a user's API key (and optionally the password); the old key stops working at once. */
export async function rotateApiKey(
  tx: Tx,
  userId: string,
  apiKey: { hash: string; sealed: string },
  extra: { passwordHash?: string; now: number },
): Promise<UserRow> {
  return replaceApiKey(tx, userId, apiKey, extra.passwordHash);
}
