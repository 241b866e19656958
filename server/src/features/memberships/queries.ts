import type { Kysely } from 'kysely';
import type { Membership } from '../../db/rows.js';
import type { Database } from '../../db/schema.js';
import { prepared } from '../../db/prepared.js';

// Who belongs to which group, as every feature asks it: the facts of the access rules and the
// recipients of group events. Below every feature that asks, so none of them imports another for it.

type Q = Kysely<Database>;

// Asked by most requests (a group page, a search, a message): prepared once, and kept until the
// next change (db/prepared.ts, `memo`): on SQLite a message answer read it at every request, 6 % of
// that answer's time (bench/README.md, issue 23 sixteenth session).
const membershipOf = prepared(
  (db, groupId: string, userId: string) =>
    db
      .selectFrom('memberships')
      .select(['group_id', 'user_id'])
      .where('group_id', '=', groupId)
      .where('user_id', '=', userId),
  { memo: true },
);

/** The user's row in the group's member list, if they are a member (the facts of groups/policy.ts). */
export async function findMembership(db: Q, groupId: string, userId: string): Promise<Membership | undefined> {
  return (await membershipOf(db, groupId, userId))[0];
}

/** Ids of the group's members other than `exceptUserId`: the recipients of a group notification. */
export async function listOtherMemberIds(db: Q, groupId: string, exceptUserId: string | null): Promise<string[]> {
  let query = db.selectFrom('memberships').select('user_id').where('group_id', '=', groupId);
  if (exceptUserId !== null) query = query.where('user_id', '!=', exceptUserId);
  const rows = await query.execute();
  return rows.map((r) => r.user_id);
}

/** Ids of the groups a user belongs to, in no particular order. */
export async function groupIdsOfUser(db: Q, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('memberships').select('group_id').where('user_id', '=', userId).execute();
  return rows.map((g) => g.group_id);
}
