import { LIMITS, type FeedItem, type Message } from '@kith/common';
import type { AppContext } from '../../context.js';
import type { Tx } from '../../db/transaction.js';
import { invalidField, notFound } from '../../lib/errors.js';
import { canSeeGroup } from '../groups/policy.js';
import type { MessageRow, UserRow } from '../../db/rows.js';
import { callerAlone } from '../auth/authenticate.js';
import { mentionsOf } from './mentions.js';
import { presentFeedItem } from './presenter.js';
import {
  childCounts,
  findMessageViews,
  frontMessageIdAt,
  frontMessagesAfter,
  frontPageIds,
  lineageOf,
  memberFrontAndPins,
  findCallerAndFrontPage,
  previewsOf,
  unreadTargets,
} from './queries.js';
import { messageAnswer, reactionSummariesOf } from './service.js';

/**
 * The group's front message count and its pinned ids in pin order, once the caller may see the
 * group (404 otherwise, §1.8): one statement.
 */
async function requireMember(
  db: Tx,
  groupId: string,
  user: UserRow,
): Promise<{ totalItems: number; pinned: string[] }> {
  const found = await memberFrontAndPins(db, groupId, user.id);
  if (found === undefined || !canSeeGroup(user, { id: groupId }, found.membership)) throw notFound();
  return { totalItems: found.frontCount, pinned: found.pinned };
}

/** The front position where page `rawPage` starts; null for a page that is not a whole number from 0. */
const pageStart = (rawPage: string): number | null =>
  /^\d{1,9}$/.test(rawPage) ? Number(rawPage) * LIMITS.groupPageSize : null;
const badPage = () => invalidField('page', 'The page must be a whole number from 0');

/**
 * GET /api/groups/{id}/page/{page} (docs/api §5.4): ids of front messages, 30 a page. The pinned
 * ones come first in pin order, then the others by activity, so the page list is one sequence
 * (pinned, then the rest) cut into pages: nothing twice, `totalItems` unchanged. On PostgreSQL the
 * route reads the page with its caller instead (`groupPageWithKey`).
 */
export async function groupPage(ctx: AppContext, user: UserRow, groupId: string, rawPage: string) {
  const start = pageStart(rawPage);
  if (start === null) throw badPage();
  const db = ctx.db.kysely;
  const size = LIMITS.groupPageSize;
  // The pins are shown only once membership is confirmed.
  const { totalItems, pinned } = await requireMember(db, groupId, user);
  const pinnedHere = pinned.slice(start, start + size);
  const room = size - pinnedHere.length;
  const others = room === 0 ? [] : await frontPageIds(db, groupId, room, Math.max(0, start - pinned.length), pinned);
  return { messages: [...pinnedHere, ...others], totalItems };
}

/**
 * `groupPage` on PostgreSQL for a request whose caller is read with the page, in one statement
 * (`withKey`, http/route.ts): `accept` settles the caller as the authentication hook would, 401
 * first, before anything about the page or the group.
 */
export async function groupPageWithKey(
  ctx: AppContext,
  keyHash: string,
  groupId: string | null,
  rawPage: string,
  accept: (user: UserRow | undefined) => UserRow,
) {
  const db = ctx.db.kysely;
  const start = pageStart(rawPage);
  if (groupId === null || start === null) {
    // Nothing to read beside the caller: 401 first, then what the route answers after the hook.
    await callerAlone(db, keyHash, accept);
    throw groupId === null ? notFound() : badPage();
  }
  const { caller, found } = await findCallerAndFrontPage(db, keyHash, groupId, start);
  const user = accept(caller);
  if (found === undefined || !canSeeGroup(user, { id: groupId }, found.membership)) throw notFound();
  const size = LIMITS.groupPageSize;
  const pinnedHere = found.pinned.slice(start, start + size);
  const others = found.others.slice(0, size - pinnedHere.length);
  return { messages: [...pinnedHere, ...others], totalItems: found.frontCount };
}

/** The position of the last card of a page, opaque to clients: `<activity ms>.<id>` in base64url. */
export function encodeCursor(lastActivityDate: number, id: string): string {
  return Buffer.from(`${lastActivityDate}.${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { at: number; id: string } {
  const [at = '', id = ''] = Buffer.from(cursor, 'base64url').toString('utf8').split('.', 2);
  if (!/^\d{1,16}$/.test(at) || !/^[0-9a-f-]{36}$/.test(id)) throw invalidField('cursor', 'The cursor cannot be read');
  return { at: Number(at), id };
}

const FEED_DEFAULT = 30;
const FEED_MAX = 50;
// Enough to cover what anyone has not read yet; older unread notifications no longer mark cards.
export const UNREAD_SCAN = 1000;

/**
 * The `limit` and `cursor` of a feed request (docs/api §11.1, and §11.8 across groups): 1–50 cards,
 * 30 when absent, after the position the cursor names. A value given twice arrives as an array,
 * which is no limit or cursor.
 */
export function parseFeedQuery(query: { limit?: string | string[]; cursor?: string | string[] }): {
  limit: number;
  after: { at: number; id: string } | null;
} {
  let limit = FEED_DEFAULT;
  if (query.limit !== undefined) {
    if (
      typeof query.limit !== 'string' ||
      !/^\d{1,3}$/.test(query.limit) ||
      Number(query.limit) < 1 ||
      Number(query.limit) > FEED_MAX
    ) {
      throw invalidField('limit', `The limit must be 1 to ${FEED_MAX}`);
    }
    limit = Number(query.limit);
  }
  if (Array.isArray(query.cursor)) throw invalidField('cursor', 'The cursor cannot be read');
  const after = query.cursor === undefined || query.cursor === '' ? null : decodeCursor(query.cursor);
  return { limit, after };
}

/**
 * The messages a caller has something new about (docs/api §11.1): the targets of their unread
 * new_message/new_comment notifications and every ancestor of those targets.
 */
export function threadIdsOf(targets: readonly Pick<MessageRow, 'id' | 'lineage'>[]): Set<string> {
  const ids = new Set<string>();
  for (const t of targets) {
    ids.add(t.id);
    for (const ancestor of lineageOf(t)) ids.add(ancestor);
  }
  return ids;
}

/** The unread marks of one group's cards. */
async function unreadThreadIds(db: Tx, user: UserRow, groupId: string): Promise<Set<string>> {
  return threadIdsOf(await unreadTargets(db, user.id, groupId, UNREAD_SCAN));
}

/**
 * The cards of `ids`, in that order (one that vanished meanwhile is left out), with their extras
 * loaded in one query each for all of them: no query per card, whatever the page's length.
 */
export async function feedCards(
  ctx: AppContext,
  db: Tx,
  user: UserRow,
  ids: string[],
  unreadIds: Promise<Set<string>>,
): Promise<FeedItem[]> {
  const [views, counts, unread, previews, reactions, mentions] = await Promise.all([
    findMessageViews(db, ids),
    childCounts(db, ids),
    unreadIds,
    previewsOf(ctx, db, ids),
    reactionSummariesOf(ctx, db, ids, user.id),
    mentionsOf(db, ids),
  ]);
  const byId = new Map(views.map((v) => [v.id, v]));
  return ids.flatMap((id) => {
    const view = byId.get(id);
    return view === undefined
      ? []
      : [
          presentFeedItem(
            view,
            counts.get(id) ?? 0,
            unread.has(id),
            previews.get(id) ?? null,
            reactions.get(id) ?? [],
            mentions.get(id) ?? [],
          ),
        ];
  });
}

/** The cursor after the last card shown, from `limit + 1` rows read; null when there were no more. */
export function nextCursorOf(
  rows: readonly { id: string; last_activity_date: number }[],
  limit: number,
): string | null {
  const last = rows.slice(0, limit).at(-1);
  return rows.length > limit && last !== undefined ? encodeCursor(last.last_activity_date, last.id) : null;
}

/**
 * GET /api/groups/{id}/feed (docs/api §11.1): a screen of cards in one request. The cursor is the
 * position of the last card, so paging neither repeats nor skips cards while the order changes.
 * The first screen starts with every pinned message (at most LIMITS.pinsPerGroup) in pin order,
 * above `limit` others; the cursor counts only the others, and later screens leave the pinned out.
 */
export async function groupFeed(
  ctx: AppContext,
  user: UserRow,
  groupId: string,
  // A value given twice arrives as an array, which is no limit or cursor.
  query: { limit?: string | string[]; cursor?: string | string[] },
): Promise<{ messages: FeedItem[]; totalItems: number; nextCursor: string | null }> {
  const { limit, after } = parseFeedQuery(query);
  const db = ctx.db.kysely;
  const { totalItems, pinned } = await requireMember(db, groupId, user);

  const rows = await frontMessagesAfter(db, groupId, after, limit + 1, pinned);
  const shown = rows.slice(0, limit);
  const ids = [...(after === null ? pinned : []), ...shown.map((r) => r.id)];
  const messages = await feedCards(ctx, db, user, ids, unreadThreadIds(db, user, groupId));
  return { messages, totalItems, nextCursor: nextCursorOf(rows, limit) };
}

/** GET /api/groups/{id}/random (docs/api §5.5): a front message picked uniformly; null when none. */
export async function randomMessage(ctx: AppContext, user: UserRow, groupId: string): Promise<Message | null> {
  const db = ctx.db.kysely;
  const { totalItems: total } = await requireMember(db, groupId, user);
  if (total === 0) return null;
  const offset = Math.floor(Math.random() * total);
  const id = await frontMessageIdAt(db, groupId, offset);
  return id === undefined ? null : messageAnswer(ctx, id, user);
}
