import {
  DEFAULT_PAGES,
  PUSH_CHOICES,
  NOTIFICATION_EMAIL_FREQUENCIES,
  MENTION_EMAIL_CHOICES,
  THEMES,
  isValidLangCode,
  isValidNewPassword,
  normalizeEmail,
  normalizeName,
  LIMITS,
} from '@kith/common';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/database.js';
import { transaction } from '../../db/transaction.js';
import type { Body } from '../../lib/body.js';
import { ApiError, forbidden, invalidField } from '../../lib/errors.js';
import { hashPassword } from '../../lib/passwords.js';
import { reindexAuthor } from '../../search/reindex.js';
import { newApiKey } from '../auth/api-keys.js';
import { accountDeletedMail, loginChangedMail, passwordChangedMail } from '../auth/mails.js';
import { rotateApiKey, type SignedIn } from '../auth/service.js';
import { queueMail } from '../../mail/queue.js';
import { canMakeDefaultGroup } from '../groups/policy.js';
import { findMembership } from '../memberships/queries.js';
import { canBeAvatarOf } from '../files/policy.js';
import { findFile } from '../files/queries.js';
import { queueImmediateMailOf } from '../notifications/mailing.js';
import { isValidTimeZone, parseQuietHours } from '../push/policy.js';
import { canEditUser } from './policy.js';
import { getMe } from '../users/service.js';
import {
  deleteUserRow,
  findUserByLogin,
  groupsWithMembers,
  loadUser,
  markGroupsEmptied,
  updateUserRow,
} from '../users/queries.js';
import { deleteExportZips, exportZipsOf } from '../exports/service.js';
import { groupIdsOfUser } from '../memberships/queries.js';
import type { UserRow } from '../../db/rows.js';
import type { UsersTable } from '../../db/schema.js';
import type { Updateable } from 'kysely';

const loginTaken = () => new ApiError(409, 'login_taken', 'Another account already uses this e-mail address', 'login');
const invalidName = () =>
  new ApiError(400, 'invalid_name', 'The name must be 1 to 128 characters, without < > or control characters', 'name');

/**
 * PUT /api/users/{id} (docs/api §4.3): every present field is checked first, then all are applied
 * in one transaction, so a refused call changes nothing.
 */
export async function updateUser(ctx: AppContext, caller: UserRow, targetId: string | null, body: Body) {
  if (!canEditUser(caller, targetId)) throw forbidden('You can only change your own account');
  // The answer shows the caller active now, like every successful write (docs/api §1.11).
  const changes: Updateable<UsersTable> = { last_activity_date: ctx.clock.now() };

  const rawName = body.string('name');
  if (rawName !== undefined) {
    const name = normalizeName(rawName);
    if (name === null) throw invalidName();
    changes.name = name;
  }

  let newLogin: string | undefined;
  const rawLogin = body.string('login');
  if (rawLogin !== undefined) {
    const login = normalizeEmail(rawLogin);
    if (login === null) throw new ApiError(400, 'invalid_email', 'This e-mail address is not valid', 'login');
    if (login !== caller.login) {
      const other = await findUserByLogin(ctx.db.kysely, login);
      if (other !== undefined)
        throw new ApiError(409, 'login_taken', 'Another account already uses this e-mail address', 'login');
      newLogin = login;
      changes.login = login;
    }
  }

  const password = body.string('password');
  if (password !== undefined && password !== '') {
    if (!isValidNewPassword(password)) {
      throw new ApiError(
        400,
        'invalid_password',
        `The password must be ${LIMITS.passwordMin} to ${LIMITS.passwordMax} characters long`,
        'password',
      );
    }
  }

  if (body.has('avatar')) {
    // An avatar must be an image the caller uploaded (docs/api §4.3). Deleting the replaced
    // avatar file (unless attached to a message) belongs to the upload cleanup job, still to come.
    const avatarId = body.id('avatar');
    const file = avatarId === undefined || avatarId === 'invalid' ? undefined : await findFile(ctx.db.kysely, avatarId);
    if (!canBeAvatarOf(caller.id, file)) {
      throw new ApiError(400, 'invalid_avatar', 'The avatar must be an image you uploaded', 'avatar');
    }
    changes.avatar_id = file?.id ?? null;
  } else if (body.raw('avatar') === null) {
    changes.avatar_id = null;
  }

  const data = body.object('data');
  if (data !== undefined) {
    const frequency = data.string('notification_emails');
    if (frequency !== undefined) {
      if (!(NOTIFICATION_EMAIL_FREQUENCIES as readonly string[]).includes(frequency)) {
        throw invalidField(
          'data.notification_emails',
          `The frequency must be one of ${NOTIFICATION_EMAIL_FREQUENCIES.join(', ')}`,
        );
      }
      changes.notification_emails = frequency;
    }
    const lang = data.string('lang');
    if (lang !== undefined) {
      if (!isValidLangCode(lang)) throw invalidField('data.lang', 'The language code is not valid');
      changes.lang = lang;
    }
    const theme = data.string('theme');
    if (theme !== undefined) {
      if (!(THEMES as readonly string[]).includes(theme)) {
        throw invalidField('data.theme', `The theme must be one of ${THEMES.join(', ')}`);
      }
      changes.theme = theme;
    }
    const mentionEmails = data.string('mention_emails');
    if (mentionEmails !== undefined) {
      if (!(MENTION_EMAIL_CHOICES as readonly string[]).includes(mentionEmails)) {
        throw invalidField('data.mention_emails', `Mention e-mails must be one of ${MENTION_EMAIL_CHOICES.join(', ')}`);
      }
      changes.mention_emails = mentionEmails;
    }
    const defaultPage = data.string('default_page');
    if (defaultPage !== undefined) {
      if (!(DEFAULT_PAGES as readonly string[]).includes(defaultPage)) {
        throw invalidField('data.default_page', `The default page must be one of ${DEFAULT_PAGES.join(', ')}`);
      }
      changes.default_page = defaultPage;
    }
    // Web Push settings (issue 21, docs/api §11.9).
    const pushChoice = data.string('push_notifications');
    if (pushChoice !== undefined) {
      if (!(PUSH_CHOICES as readonly string[]).includes(pushChoice)) {
        throw invalidField('data.push_notifications', `The push choice must be one of ${PUSH_CHOICES.join(', ')}`);
      }
      changes.push_notifications = pushChoice;
    }
    const quietHours = data.string('quiet_hours');
    if (quietHours !== undefined) {
      if (parseQuietHours(quietHours) === 'invalid') {
        throw invalidField('data.quiet_hours', 'Quiet hours must be two different times such as 22:00-07:00, or empty');
      }
      changes.quiet_hours = quietHours;
    }
    const timeZone = data.string('time_zone');
    if (timeZone !== undefined) {
      if (!isValidTimeZone(timeZone))
        throw invalidField('data.time_zone', 'The time zone must be a name such as Europe/Paris');
      changes.time_zone = timeZone;
    }
    if (data.raw('default_group') === null || data.raw('default_group') === '') {
      changes.default_group_id = null;
    } else if (data.has('default_group')) {
      const groupId = data.id('default_group');
      const membership =
        groupId === undefined || groupId === 'invalid'
          ? undefined
          : await findMembership(ctx.db.kysely, groupId, caller.id);
      if (groupId === undefined || !canMakeDefaultGroup(caller, { id: groupId }, membership)) {
        throw invalidField('data.default_group', 'The default group must be one of your groups');
      }
      changes.default_group_id = groupId;
    }
  }

  if (password !== undefined && password !== '') changes.password_hash = await hashPassword(password);

  const updated = await transaction(ctx, async (tx, effects) => {
    try {
      await updateUserRow(tx, caller.id, changes);
    } catch (error) {
      // Two accounts racing for the same login: the unique index decides.
      if (newLogin !== undefined && isUniqueViolation(error)) throw loginTaken();
      throw error;
    }
    const user = await loadUser(tx, caller.id);
    // Search matches the author's current name (docs/api §10.7): a new name re-indexes their messages.
    if (changes.name !== undefined && user.name !== caller.name) await reindexAuthor(ctx, tx, caller.id, user.name);
    // A password change does not rotate the key (the 0.5.6 client would log itself out).
    if (changes.password_hash !== undefined) await queueMail(ctx, effects, passwordChangedMail(ctx.config, user));
    if (newLogin !== undefined) await queueMail(ctx, effects, loginChangedMail(ctx.config, caller.login, user));
    if (changes.notification_emails === 'immediately' && caller.notification_emails !== 'immediately') {
      await queueImmediateMailOf(ctx, tx, effects, caller.id);
    }
    return user;
  });
  return getMe(ctx, updated);
}

/**
 * DELETE /api/users/{id} (docs/api §4.4, §10.4): the account, its key, memberships, own
 * notifications and reset keys go at once; notifications it caused stay with `fromUser: null`;
 * groups left empty start their 30 days before purge. No leave notifications are sent.
 */
export async function deleteUser(ctx: AppContext, caller: UserRow, targetId: string | null): Promise<void> {
  if (!canEditUser(caller, targetId)) throw forbidden('You can only delete your own account');
  await deleteAccount(ctx, caller);
}

/**
 * Deletes an account as DELETE /api/users/{id} does, whoever asks (the account itself, or an
 * administrator through `kith users delete`).
 */
export async function deleteAccount(ctx: AppContext, caller: UserRow): Promise<void> {
  // Its export zips go too (the rows go with the account by foreign key).
  const exportZips = await exportZipsOf(ctx, caller.id);
  await transaction(ctx, async (tx, effects) => {
    const now = ctx.clock.now();
    const groupIds = await groupIdsOfUser(tx, caller.id);
    // The messages stay searchable, no longer by the author's name (docs/api §10.4): re-indexed
    // without it while `author_id` still finds them.
    await reindexAuthor(ctx, tx, caller.id, null);
    // Foreign keys cascade memberships, owned notifications and reset keys, and null `from_user_id`.
    await deleteUserRow(tx, caller.id);
    if (groupIds.length > 0) {
      const used = await groupsWithMembers(tx, groupIds);
      const emptied = groupIds.filter((id) => !used.has(id));
      if (emptied.length > 0) await markGroupsEmptied(tx, emptied, now);
    }
    await queueMail(ctx, effects, accountDeletedMail(ctx.config, caller));
    // The account's live streams end (docs/api §11.4).
    effects.publish({ type: 'disconnect', userId: caller.id });
  });
  await deleteExportZips(ctx, exportZips);
}

/** POST /api/users/{id}/reset-api-key: the old key stops working at once (docs/api §4.5). */
export async function resetApiKey(
  ctx: AppContext,
  caller: UserRow,
  targetId: string | null,
): Promise<SignedIn<{ apiKey: string }>> {
  if (!canEditUser(caller, targetId)) throw forbidden('You can only reset your own API key');
  const key = newApiKey(ctx);
  const user = await transaction(ctx, async (tx, effects) => {
    const rotated = await rotateApiKey(tx, caller.id, key, { now: ctx.clock.now() });
    // Streams opened with the old key end (docs/api §11.4).
    effects.publish({ type: 'disconnect', userId: caller.id });
    return rotated;
  });
  return { answer: { apiKey: key.key }, user };
}
