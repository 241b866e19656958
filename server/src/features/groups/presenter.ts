import type { Group, GroupRef } from '@kith/common';
import { toSeconds } from '../../lib/clock.js';
import { presentUser } from '../users/presenter.js';
import type { GroupRow } from '../../db/rows.js';

/** A nested group reference with its name (used in `me.groups`, join and leave answers). */
export function presentGroupRef(group: Pick<GroupRow, 'id' | 'name'>): GroupRef {
  return { id: group.id, entityType: 'group' as const, name: group.name };
}

/**
 * The group object (docs/api §2.3). `secretKey` is the invitation key; it is left out when the
 * instance hides invitation links, except in the answer to creation (the client needs it there).
 */
export function presentGroup(
  group: GroupRow,
  members: { id: string; name: string; avatar_id: string | null }[],
  options: { withSecretKey: boolean },
): Group {
  return {
    id: group.id,
    entityType: 'group' as const,
    name: group.name,
    createdAt: toSeconds(group.created_at),
    lastActivityDate: toSeconds(group.last_activity_date),
    ...(options.withSecretKey ? { secretKey: group.secret_key } : {}),
    users: members.map(presentUser),
  };
}
