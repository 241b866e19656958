import type { Kysely } from 'kysely';
import type { GroupRow } from '../../db/rows.js';
import type { Database } from '../../db/schema.js';

type Q = Kysely<Database>;

export function findGroupById(db: Q, id: string): Promise<GroupRow | undefined> {
  return db.selectFrom('groups').selectAll().where('id', '=', id).executeTakeFirst();
}

// Invite keys are UUIDs (ours and Zusam's); anything else cannot match and is not looked up.
const INVITE_KEY_SHAPE = /^[A-Za-z0-9_-]{1,128}$/;

export async function findGroupBySecretKey(db: Q, key: string): Promise<GroupRow | undefined> {
  if (!INVITE_KEY_SHAPE.test(key)) return undefined;
  return db.selectFrom('groups').selectAll().where('secret_key', '=', key).executeTakeFirst();
}

/** The oldest group with this exact name, if any (the admin CLI joins groups by name). */
export function findGroupByName(db: Q, name: string): Promise<GroupRow | undefined> {
  return db.selectFrom('groups').selectAll().where('name', '=', name).orderBy('created_at').limit(1).executeTakeFirst();
}

/** Members in the order they joined, with what the group object shows of each. */
export function listMembers(db: Q, groupId: string): Promise<{ id: string; name: string; avatar_id: string | null }[]> {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.name', 'users.avatar_id'])
    .where('memberships.group_id', '=', groupId)
    .orderBy('memberships.joined_at')
    .orderBy('users.id')
    .execute();
}
/** Writes a new group row. */
export async function insertGroupRow(db: Q, group: GroupRow): Promise<void> {
  await db.insertInto('groups').values(group).execute();
}

/**
 * Adds a membership unless it exists (ON CONFLICT rather than a check first: two joins racing, a
 * double submit, make one membership); true when a row was written.
 */
export async function insertMembership(db: Q, groupId: string, userId: string, now: number): Promise<boolean> {
  const inserted = await db
    .insertInto('memberships')
    .values({ group_id: groupId, user_id: userId, joined_at: now })
    .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) !== 0;
}

/** Sets (a time) or clears (null) when a group was left without members, the start of its purge delay. */
export async function setGroupEmptiedAt(db: Q, groupId: string, emptiedAt: number | null): Promise<void> {
  await db.updateTable('groups').set({ emptied_at: emptiedAt }).where('id', '=', groupId).execute();
}

/** Sets a user's default group (null for none). */
export async function setDefaultGroup(db: Q, userId: string, groupId: string | null): Promise<void> {
  await db.updateTable('users').set({ default_group_id: groupId }).where('id', '=', userId).execute();
}

/** Renames a group. */
export async function setGroupName(db: Q, groupId: string, name: string): Promise<void> {
  await db.updateTable('groups').set({ name }).where('id', '=', groupId).execute();
}

/** Replaces a group's invite key. */
export async function setGroupSecretKey(db: Q, groupId: string, key: string): Promise<void> {
  await db.updateTable('groups').set({ secret_key: key }).where('id', '=', groupId).execute();
}

/** Removes a user from a group's member list. */
export async function deleteMembership(db: Q, groupId: string, userId: string): Promise<void> {
  await db.deleteFrom('memberships').where('group_id', '=', groupId).where('user_id', '=', userId).execute();
}

/** Deletes a user's notifications that came from a group. */
export async function deleteNotificationsFromGroup(db: Q, userId: string, groupId: string): Promise<void> {
  await db.deleteFrom('notifications').where('user_id', '=', userId).where('from_group_id', '=', groupId).execute();
  // The group's events no longer reach a non-member (nor, after a rejoin, anything older than the
  // new membership); the leaver's states of them go too.
  await db
    .deleteFrom('notification_states')
    .where('user_id', '=', userId)
    .where('event_id', 'in', (eb) => eb.selectFrom('notification_events').select('id').where('group_id', '=', groupId))
    .execute();
}

/** The group a user joined first (ties by id), if they belong to any. */
export async function findOldestGroupIdOf(db: Q, userId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('memberships')
    .select('group_id')
    .where('user_id', '=', userId)
    .orderBy('joined_at')
    .orderBy('group_id')
    .limit(1)
    .executeTakeFirst();
  return row?.group_id;
}

/** Deletes a user's bookmarks of the messages of a group, in one statement. */
export async function deleteBookmarksInGroup(db: Q, userId: string, groupId: string): Promise<void> {
  await db
    .deleteFrom('bookmarks')
    .where('user_id', '=', userId)
    .where('message_id', 'in', (eb) => eb.selectFrom('messages').select('id').where('group_id', '=', groupId))
    .execute();
}
