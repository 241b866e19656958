import type { MessageAbilities } from '@kith/common';
import { canSeeGroup } from '../groups/policy.js';
import type { Membership, MessageRow, UserRow } from '../../db/rows.js';

// What a caller may do with a message (docs/api §1.8, §6). The facts (the message row, the caller's
// membership of its group) are loaded by the service and passed in, so these rules stay pure. The
// answer's `can` (messageAbilities) is computed here too, so the web client never re-derives them.

type Caller = Pick<UserRow, 'id'>;
type Authored = Pick<MessageRow, 'author_id' | 'is_deleted'>;

/** The caller wrote the message and it is not a placeholder (placeholders have no author). */
function isAuthor(user: Caller, message: Authored): boolean {
  return message.is_deleted === 0 && message.author_id !== null && message.author_id === user.id;
}

/** Members of its group read a message, placeholders included (§1.8, §6.2). */
export function canReadMessage(
  user: Caller,
  message: Pick<MessageRow, 'group_id'>,
  membership: Membership | undefined,
): boolean {
  return canSeeGroup(user, { id: message.group_id }, membership);
}

/** Only the author edits a message's data and files (§6.3). */
export function canEditMessage(user: Caller, message: Authored): boolean {
  return isAuthor(user, message);
}

/** Only the author deletes a message (§6.4). */
export function canDeleteMessage(user: Caller, message: Authored): boolean {
  return isAuthor(user, message);
}

/** The author publishes a reply that is not on the group page yet (§6.3, `isInFront: true`). */
export function canPublishMessage(user: Caller, message: Authored & Pick<MessageRow, 'is_in_front'>): boolean {
  return isAuthor(user, message) && message.is_in_front === 0;
}

/**
 * Any member pins or unpins a message shown on the group page (§6.3 `pinnedInGroup`), not only its
 * author: pins arrange the group's page for everyone. A reply not published there has no place on
 * that page to pin; placeholders are never on it. Membership is the reading rule, checked before.
 */
export function canPinMessage(message: Pick<MessageRow, 'is_in_front' | 'is_deleted'>): boolean {
  return message.is_in_front === 1 && message.is_deleted === 0;
}

/** A reply goes under a message of the same group that is not a placeholder (§6.1 `parent`). */
export function canReplyTo(parent: Pick<MessageRow, 'group_id' | 'is_deleted'>, groupId: string): boolean {
  return parent.group_id === groupId && parent.is_deleted === 0;
}

/** Any reader shares a message through a public link, except a placeholder (§6.6). */
export function canShareMessage(message: Pick<MessageRow, 'is_deleted'>): boolean {
  return message.is_deleted === 0;
}

/** The answer's `can` for this caller; `null` is the visitor of a public link, who may do nothing. */
export function messageAbilities(
  user: Caller | null,
  message: Authored & Pick<MessageRow, 'is_in_front'>,
): MessageAbilities {
  if (user === null) return { edit: false, delete: false, publish: false, pin: false };
  return {
    edit: canEditMessage(user, message),
    delete: canDeleteMessage(user, message),
    publish: canPublishMessage(user, message),
    pin: canPinMessage(message),
  };
}
