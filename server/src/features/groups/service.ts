import { normalizeName } from '@kith/common';
import type { AppContext } from '../../context.js';
import { transaction, type Effects, type Tx } from '../../db/transaction.js';
import { ApiError, featureDisabled, missingField, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { notifyGroupMembers } from '../notifications/service.js';
import type { GroupRow, Membership, UserRow } from '../../db/rows.js';
import { findMembership } from '../memberships/queries.js';
import {
  deleteBookmarksInGroup,
  deleteMembership,
  deleteNotificationsFromGroup,
  findGroupById,
  findGroupBySecretKey,
  findOldestGroupIdOf,
  insertGroupRow,
  insertMembership,
  listMembers,
  setDefaultGroup,
  setGroupEmptiedAt,
  setGroupName,
  setGroupSecretKey,
} from './queries.js';
import { canLeaveGroup, canRenameGroup, canResetInviteKey, canSeeGroup } from './policy.js';
import { presentGroup, presentGroupRef } from './presenter.js';

/** A group name from a request: `missing_field` when absent, `invalid_name` when it breaks the rule. */
export function readGroupName(raw: string | undefined): string {
  if (raw === undefined) throw missingField('name', 'The group name is required');
  const name = normalizeName(raw);
  if (name === null) {
    throw new ApiError(
      400,
      'invalid_name',
      'The name must be 1 to 128 characters, without < > or control characters',
      'name',
    );
  }
  return name;
}

/** Inserts a group with a fresh invite key (a random UUID, like Zusam's). */
export async function insertGroup(tx: Tx, name: string, now: number): Promise<GroupRow> {
  const group: GroupRow = {
    id: newId(),
    name,
    secret_key: newId(),
    created_at: now,
    last_activity_date: now,
    emptied_at: null,
    front_count: 0,
    messages_posted: 0,
  };
  await insertGroupRow(tx, group);
  return group;
}

/**
 * Adds `user` to `group` unless already a member; true when they joined. With `notify`, the other
 * members are notified (live after the commit). A joiner without a default group gets this one; a
 * group waiting to be purged is kept.
 */
export async function addMember(
  tx: Tx,
  effects: Effects,
  group: GroupRow,
  user: UserRow,
  now: number,
  options: { notify: boolean },
): Promise<boolean> {
  // ON CONFLICT rather than a check first: two joins racing (a double submit) make one membership.
  if (!(await insertMembership(tx, group.id, user.id, now))) return false;
  if (group.emptied_at !== null) await setGroupEmptiedAt(tx, group.id, null);
  if (user.default_group_id === null) await setDefaultGroup(tx, user.id, group.id);
  if (!options.notify) return true;
  await notifyGroupMembers(
    tx,
    effects,
    group.id,
    user.id,
    { type: 'user_joined_group', target: group.id, fromUserId: user.id, fromGroupId: group.id, fromMessageId: null },
    now,
  );
  return true;
}

/** A rule of groups/policy.ts: may this caller do it to this group? */
type GroupAbility = (user: UserRow, group: GroupRow, membership: Membership | undefined) => boolean;

/**
 * Loads a group for an action `ability` allows; anything else is 404, like a group that does not
 * exist, so ids cannot be probed (docs/api §1.8).
 */
async function loadGroupFor(tx: Tx, groupId: string, user: UserRow, ability: GroupAbility): Promise<GroupRow> {
  const group = await findGroupById(tx, groupId);
  const membership = group === undefined ? undefined : await findMembership(tx, group.id, user.id);
  if (group === undefined || !ability(user, group, membership)) throw notFound();
  return group;
}

async function groupAnswer(ctx: AppContext, tx: Tx, group: GroupRow, withSecretKey = ctx.config.showInvitationLinks) {
  return presentGroup(group, await listMembers(tx, group.id), { withSecretKey });
}

/** POST /api/groups: the creator becomes the only member and, if they had none, it becomes their default group. */
export function createGroup(ctx: AppContext, user: UserRow, rawName: string | undefined) {
  const name = readGroupName(rawName);
  return transaction(ctx, async (tx, effects) => {
    const now = ctx.clock.now();
    const group = await insertGroup(tx, name, now);
    await addMember(tx, effects, group, user, now, { notify: false });
    return groupAnswer(ctx, tx, group, true);
  });
}

/** GET /api/groups/{id}: always built from current data (docs/api §1.4). */
export function getGroup(ctx: AppContext, user: UserRow, groupId: string) {
  return transaction(ctx, async (tx) => groupAnswer(ctx, tx, await loadGroupFor(tx, groupId, user, canSeeGroup)));
}

/** PUT /api/groups/{id}: only `name` is read; a real change notifies the other members. */
export function renameGroup(ctx: AppContext, user: UserRow, groupId: string, rawName: string | undefined) {
  return transaction(ctx, async (tx, effects) => {
    const group = await loadGroupFor(tx, groupId, user, canRenameGroup);
    if (rawName === undefined) return groupAnswer(ctx, tx, group);
    const name = readGroupName(rawName);
    if (name !== group.name) {
      await setGroupName(tx, group.id, name);
      await notifyGroupMembers(
        tx,
        effects,
        group.id,
        user.id,
        {
          type: 'group_name_change',
          target: group.id,
          fromUserId: user.id,
          fromGroupId: group.id,
          fromMessageId: null,
          data: { previousGroupName: group.name, newGroupName: name },
        },
        ctx.clock.now(),
      );
    }
    return groupAnswer(ctx, tx, { ...group, name });
  });
}

/**
 * POST /api/groups/{id}/leave (docs/api §5.6, §10.5): the caller's notifications from the group go,
 * their default group moves to the oldest remaining one, the remaining members are told, and a
 * group left empty starts its 30 days before purge.
 */
export function leaveGroup(ctx: AppContext, user: UserRow, groupId: string) {
  return transaction(ctx, async (tx, effects) => {
    const group = await loadGroupFor(tx, groupId, user, canLeaveGroup);
    const now = ctx.clock.now();
    await deleteMembership(tx, group.id, user.id);
    await deleteNotificationsFromGroup(tx, user.id, group.id);
    if (user.default_group_id === group.id) {
      await setDefaultGroup(tx, user.id, (await findOldestGroupIdOf(tx, user.id)) ?? null);
    }
    const remaining = await notifyGroupMembers(
      tx,
      effects,
      group.id,
      user.id,
      {
        type: 'user_left_group',
        target: group.id,
        fromUserId: user.id,
        fromGroupId: group.id,
        fromMessageId: null,
      },
      now,
    );
    // The leaver's bookmarks of the group's messages go with their access to them.
    await deleteBookmarksInGroup(tx, user.id, group.id);
    if (remaining.length === 0) await setGroupEmptiedAt(tx, group.id, now);
    return presentGroupRef(group);
  });
}

/** POST /api/groups/{id}/reset-invite-key: the old key stops working at once. */
export function resetInviteKey(ctx: AppContext, user: UserRow, groupId: string) {
  return transaction(ctx, async (tx) => {
    await loadGroupFor(tx, groupId, user, canResetInviteKey);
    if (!ctx.config.showInvitationLinks) throw featureDisabled('Invitation links are turned off on this instance');
    const inviteKey = newId();
    await setGroupSecretKey(tx, groupId, inviteKey);
    return { inviteKey };
  });
}

/** POST /api/groups/invitation/{key}: join by invite key; a member joining again is a no-op. */
export function acceptInvitation(ctx: AppContext, user: UserRow, inviteKey: string) {
  return transaction(ctx, async (tx, effects) => {
    const group = await findGroupBySecretKey(tx, inviteKey);
    if (group === undefined) return null;
    await addMember(tx, effects, group, user, ctx.clock.now(), { notify: true });
    return presentGroupRef(group);
  });
}
