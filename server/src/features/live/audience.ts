import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { groupIdsOfUser, listOtherMemberIds } from '../memberships/queries.js';
import type { KithEvent } from '../../events/event-bus.js';

/**
 * Who may receive a live event (docs/api §11.4), the one rule for live delivery and for replays:
 * the owner of a notification, of an uploaded file or of an export; the current members of the group of a post,
 * reply or pin, read when the event is sent (joining brings a group's events, leaving stops them at
 * once). A `disconnect` is never sent to anyone: it ends streams.
 */
export type Audience = { userId: string } | { groupId: string } | null;

/** The audience of `event` (see `Audience`). */
export function audienceOf(event: KithEvent): Audience {
  switch (event.type) {
    case 'notification':
    case 'file':
    case 'export':
      return { userId: event.userId };
    case 'message':
    case 'pin':
    case 'comment':
    case 'reactions':
      return { groupId: event.groupId };
    case 'disconnect':
      return null;
  }
}

/** Everyone who may receive `event` now (group members read from `db`), for live delivery. */
export async function recipientsOf(db: Kysely<Database>, event: KithEvent): Promise<string[]> {
  const audience = audienceOf(event);
  if (audience === null) return [];
  if ('userId' in audience) return [audience.userId];
  return listOtherMemberIds(db, audience.groupId, null);
}

/**
 * The same rule for one user over many events (a replay): whether they may receive each. Their
 * groups are read once, now, and only when one of the events is a group's.
 */
export async function receivableBy(
  db: Kysely<Database>,
  userId: string,
  events: readonly KithEvent[],
): Promise<(event: KithEvent) => boolean> {
  const groups = new Set<string>();
  const isGroups = (audience: Audience) => audience !== null && 'groupId' in audience;
  if (events.some((event) => isGroups(audienceOf(event)))) {
    for (const groupId of await groupIdsOfUser(db, userId)) groups.add(groupId);
  }
  return (event) => {
    const audience = audienceOf(event);
    if (audience === null) return false;
    return 'userId' in audience ? audience.userId === userId : groups.has(audience.groupId);
  };
}
