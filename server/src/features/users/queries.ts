import type { Kysely, Updateable } from 'kysely';
import type { UserRow } from '../../db/rows.js';
import { eventsOf } from '../inbox/queries.js';
import type { Database, UsersTable } from '../../db/schema.js';
import { prepared } from '../../db/prepared.js';

type Q = Kysely<Database>;

/** The user holding an API key, looked up by the key's hash. */
// Every request with a key runs this: prepared once (db/prepared.ts), and kept until something
// changes (`memo`).
const byApiKeyHash = prepared(
  (db, keyHash: string) => db.selectFrom('users').selectAll().where('api_key_hash', '=', keyHash),
  { memo: true },
);
export async function findUserByApiKeyHash(db: Q, keyHash: string): Promise<UserRow | undefined> {
  return (await byApiKeyHash(db, keyHash))[0];
}

const byId = prepared((db, id: string) => db.selectFrom('users').selectAll().where('id', '=', id));
export async function findUserById(db: Q, id: string): Promise<UserRow | undefined> {
  return (await byId(db, id))[0];
}

/** Logins are stored lowercased; callers pass the normalized form. */
export function findUserByLogin(db: Q, login: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('login', '=', login).executeTakeFirst();
}

/** The user's groups in the order they were joined, oldest first (docs/api §2.1). */
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
 * Whether `viewerId` may see `targetId`'s profile (docs/api §1.8): they share a group, the target
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
  if (notification !== undefined) return true;
  // An event of a group they have left since (migration 0024).
  const event = await eventsOf(db, viewerId)
    .select('e.id')
    .where('e.from_user_id', '=', targetId)
    .limit(1)
    .executeTakeFirst();
  return event !== undefined;
}

/** Changes the given columns of one user (a login already taken fails on the unique index). */
export async function updateUserRow(db: Q, id: string, changes: Updateable<UsersTable>): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', id).execute();
}

/** One user's row, which must exist (read back inside the transaction that changed it). */
export function loadUser(db: Q, id: string): Promise<UserRow> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** Deletes a user row; foreign keys take or null what hangs on it. */
export async function deleteUserRow(db: Q, id: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', id).execute();
}

/** Of the groups of `groupIds`, those that still have at least one member. */
export async function groupsWithMembers(db: Q, groupIds: string[]): Promise<Set<string>> {
  const rows = await db
    .selectFrom('memberships')
    .select('group_id')
    .distinct()
    .where('group_id', 'in', groupIds)
    .execute();
  return new Set(rows.map((g) => g.group_id));
}

/** Marks groups as left without members at `now` (the start of their purge delay). */
export async function markGroupsEmptied(db: Q, groupIds: string[], now: number): Promise<void> {
  await db.updateTable('groups').set({ emptied_at: now }).where('id', 'in', groupIds).execute();
}

/** Of `ids`, the accounts that exist and are not disabled, in one query. */
export async function usersStillAllowed(db: Q, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('id', 'in', ids)
    .where('disabled_at', 'is', null)
    .execute();
  return new Set(rows.map((r) => r.id));
}
