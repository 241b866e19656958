import type { Kysely, Selectable } from 'kysely';
import type { Database, GroupsTable, MembershipsTable } from '../../db/schema.js';

export type GroupRow = Selectable<GroupsTable>;
/** A row of a group's member list, as the access rules need it. */
export type Membership = Pick<Selectable<MembershipsTable>, 'group_id' | 'user_id'>;
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

/** The user's row in the group's member list, if they are a member (the facts of groups/policy.ts). */
export function findMembership(db: Q, groupId: string, userId: string): Promise<Membership | undefined> {
  return db
    .selectFrom('memberships')
    .select(['group_id', 'user_id'])
    .where('group_id', '=', groupId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
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

/** Ids of the group's members other than `exceptUserId`: the recipients of a group notification. */
export async function listOtherMemberIds(db: Q, groupId: string, exceptUserId: string | null): Promise<string[]> {
  let query = db.selectFrom('memberships').select('user_id').where('group_id', '=', groupId);
  if (exceptUserId !== null) query = query.where('user_id', '!=', exceptUserId);
  const rows = await query.execute();
  return rows.map((r) => r.user_id);
}
