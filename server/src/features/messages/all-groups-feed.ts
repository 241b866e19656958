import { LIMITS, type FeedItem } from '@kith/common';
import type { AppContext } from '../../context.js';
import type { Tx } from '../../db/transaction.js';
import type { UserRow } from '../../db/rows.js';
import { invalidField } from '../../lib/errors.js';
import { canSeeGroup } from '../groups/policy.js';
import { feedCards, nextCursorOf, parseFeedQuery, threadIdsOf, UNREAD_SCAN } from './feed.js';
import { frontMessagesOfGroups, membershipsWithFrontCount, unreadTargetsInGroups } from './queries.js';

// The latest activity of all the caller's groups in one list (docs/api §11.8): the same cards, order
// and cursor as one group's feed (§11.1), in as many queries, whatever the number of groups.

/**
 * The groups whose messages the caller sees now, with the number of their front messages. Read on
 * every request, so a member who left or was removed stops seeing the group at once.
 */
async function visibleGroups(db: Tx, user: UserRow): Promise<{ ids: string[]; totalItems: number }> {
  const rows = await membershipsWithFrontCount(db, user.id);
  const visible = rows.filter((r) => canSeeGroup(user, { id: r.membership.group_id }, r.membership));
  return {
    ids: visible.map((r) => r.membership.group_id),
    totalItems: visible.reduce((n, r) => n + r.frontCount, 0),
  };
}

/**
 * GET /api/feed/page/{page} (docs/api §11.8), as Zusam 0.6.1 answers it: the ids of 30 front
 * messages of the caller's groups. As in 0.6.1, `{page}` is the position of the first one (its
 * client asks for 0, 30, 60…), so that client pages through Kith correctly.
 */
export async function allGroupsPage(ctx: AppContext, user: UserRow, rawPage: string) {
  if (!/^\d{1,9}$/.test(rawPage)) throw invalidField('page', 'The page must be a whole number from 0');
  const db = ctx.db.kysely;
  const groups = await visibleGroups(db, user);
  const rows = await frontMessagesOfGroups(db, groups.ids, null, LIMITS.groupPageSize, Number(rawPage));
  return { messages: rows.map((r) => r.id), totalItems: groups.totalItems };
}

/** The unread marks of cards among the groups of `groupIds`, as one group's feed marks its own. */
async function unreadThreadIds(db: Tx, user: UserRow, groupIds: string[]): Promise<Set<string>> {
  return threadIdsOf(await unreadTargetsInGroups(db, user.id, groupIds, UNREAD_SCAN));
}

/**
 * GET /api/feed (docs/api §11.8): a screen of cards of all the caller's groups, each naming its
 * group. Queries: the groups, the page, then one per kind of card extra for all cards at once.
 */
export async function allGroupsFeed(
  ctx: AppContext,
  user: UserRow,
  query: { limit?: string | string[]; cursor?: string | string[] },
): Promise<{ messages: FeedItem[]; totalItems: number; nextCursor: string | null }> {
  const { limit, after } = parseFeedQuery(query);
  const db = ctx.db.kysely;
  const groups = await visibleGroups(db, user);

  const rows = await frontMessagesOfGroups(db, groups.ids, after, limit + 1);
  const shown = rows.slice(0, limit);
  const ids = shown.map((r) => r.id);
  const shownGroups = [...new Set(shown.map((r) => r.group_id))];
  const messages = await feedCards(ctx, db, user, ids, unreadThreadIds(db, user, shownGroups));
  return { messages, totalItems: groups.totalItems, nextCursor: nextCursorOf(rows, limit) };
}
