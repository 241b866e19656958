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
