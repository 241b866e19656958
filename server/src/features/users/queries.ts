import type { Kysely } from 'kysely';
import type { UserRow } from '../../db/rows.js';
import type { Database } from '../../db/schema.js';

type Q = Kysely<Database>;

/** The user holding an API key, looked up by the key's hash. */
export function findUserByApiKeyHash(db: Q, keyHash: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('api_key_hash', '=', keyHash).executeTakeFirst();
}

export function findUserById(db: Q, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Logins are stored lowercased; callers pass the normalized form. */
export function findUserByLogin(db: Q, login: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('login', '=', login).executeTakeFirst();
}

/** The user's groups in the order they were joined, oldest first (contract §2.1). */
export function listGroupsOfUser(db: Q, userId: string): Promise<{ id: string; name: string }[]> {
  return db
    .selectFrom('memberships')
    .innerJoin('groups', 'groups.id', 'memberships.group_id')
    .select(['groups.id', 'groups.name'])
    .where('memberships.user_id', '=', userId)
    .orderBy('memberships.joined_at')
    .orderBy('groups.id')
    .execute();
}

/**
 * Whether `viewerId` may see `targetId`'s profile (contract §1.8): they share a group, the target
 * wrote a message the viewer can read (so names stay for people who left), or the target caused one
 * of the viewer's notifications.
 */
export async function isUserVisibleTo(db: Q, viewerId: string, targetId: string): Promise<boolean> {
  if (viewerId === targetId) return true;
  const sharedGroup = await db
    .selectFrom('memberships as mine')
    .innerJoin('memberships as theirs', 'theirs.group_id', 'mine.group_id')
    .select('mine.group_id')
    .where('mine.user_id', '=', viewerId)
    .where('theirs.user_id', '=', targetId)
    .limit(1)
    .executeTakeFirst();
  if (sharedGroup !== undefined) return true;
  const authored = await db
    .selectFrom('messages')
    .innerJoin('memberships', 'memberships.group_id', 'messages.group_id')
    .select('messages.id')
    .where('messages.author_id', '=', targetId)
    .where('memberships.user_id', '=', viewerId)
    .limit(1)
    .executeTakeFirst();
  if (authored !== undefined) return true;
  const notification = await db
    .selectFrom('notifications')
    .select('id')
    .where('user_id', '=', viewerId)
    .where('from_user_id', '=', targetId)
    .limit(1)
    .executeTakeFirst();
  return notification !== undefined;
}
