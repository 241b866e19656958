import type { Membership, UserRow } from '../../db/rows.js';

// What a caller may do with a group (docs/api §1.8, §5). A group exists, for a caller, only while
// they are in its member list: anything else answers 404, so group ids cannot be probed. Every
// member has the same rights; there are no group admins. The membership is looked up by the caller
// (`findMembership`) and passed in, so these rules stay pure.

type Caller = Pick<UserRow, 'id'>;
type GroupId = { id: string };

/** Whether `membership` is the caller's own row in this group's member list. */
function isMemberOf(user: Caller, group: GroupId, membership: Membership | undefined): boolean {
  return membership !== undefined && membership.user_id === user.id && membership.group_id === group.id;
}

/** Members see a group: its object, pages, feed, random message, messages and search (§5.2, §5.4, §5.5, §6.8). */
export function canSeeGroup(user: Caller, group: GroupId, membership: Membership | undefined): boolean {
  return isMemberOf(user, group, membership);
}

/** Members post in a group (§6.1); a non-member gets 404, as for a group that does not exist. */
export function canPostInGroup(user: Caller, group: GroupId, membership: Membership | undefined): boolean {
  return isMemberOf(user, group, membership);
}

/** Any member renames a group (§5.3). */
export function canRenameGroup(user: Caller, group: GroupId, membership: Membership | undefined): boolean {
  return isMemberOf(user, group, membership);
}

/** A member leaves a group (§5.6); someone outside it has nothing to leave. */
export function canLeaveGroup(user: Caller, group: GroupId, membership: Membership | undefined): boolean {
  return isMemberOf(user, group, membership);
}

/** Any member replaces a group's invitation key (§5.7); whether the instance offers invitation links is checked after. */
export function canResetInviteKey(user: Caller, group: GroupId, membership: Membership | undefined): boolean {
  return isMemberOf(user, group, membership);
}

/** Only one of the caller's own groups can be their default group (§4.3 `data.default_group`). */
export function canMakeDefaultGroup(user: Caller, group: GroupId, membership: Membership | undefined): boolean {
  return isMemberOf(user, group, membership);
}
