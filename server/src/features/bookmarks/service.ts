import { LIMITS, type Bookmark } from '@kith/common';
import type { AppContext } from '../../context.js';
import type { Body } from '../../lib/body.js';
import { toSeconds } from '../../lib/clock.js';
import { missingField, notFound } from '../../lib/errors.js';
import { newId, parseId } from '../../lib/ids.js';
import { parseLimit } from '../../lib/params.js';
import { mentionsOf } from '../messages/mentions.js';
import { presentPreview } from '../messages/presenter.js';
import { childCounts, findMessageViews, previewsOf } from '../messages/queries.js';
import { loadReadableMessage, reactionSummariesOf } from '../messages/service.js';
import type { UserRow } from '../../db/rows.js';
import { deleteOwnBookmark, insertBookmark, listReadableBookmarks, loadBookmark, type BookmarkRow } from './queries.js';

function presentBookmark(b: BookmarkRow, message?: Bookmark['message']): Bookmark {
  return {
    id: b.id,
    entityType: 'bookmark',
    createdAt: toSeconds(b.created_at),
    user: { id: b.user_id, entityType: 'user' },
    message: message ?? { id: b.message_id, entityType: 'message' },
  };
}

/**
 * POST /api/bookmarks (docs/api §9.2): one bookmark per user and message; bookmarking again answers
 * the existing one with 200.
 */
export async function addBookmark(
  ctx: AppContext,
  user: UserRow,
  body: Body,
): Promise<{ created: boolean; bookmark: Bookmark }> {
  const messageId = body.id('message_id');
  if (messageId === undefined || messageId === '') throw missingField('message_id', 'The message is required');
  const message = await loadReadableMessage(ctx.db.kysely, user, messageId === 'invalid' ? null : messageId);
  if (message.is_deleted === 1) throw notFound();
  const row: BookmarkRow = { id: newId(), user_id: user.id, message_id: message.id, created_at: ctx.clock.now() };
  if (await insertBookmark(ctx.db.kysely, row)) return { created: true, bookmark: presentBookmark(row) };
  const existing = await loadBookmark(ctx.db.kysely, user.id, message.id);
  return { created: false, bookmark: presentBookmark(existing) };
}

/** DELETE /api/bookmarks/{id}: the owner's only; others answer 404. */
export async function removeBookmark(ctx: AppContext, user: UserRow, rawId: string): Promise<void> {
  const id = parseId(rawId);
  const deleted = id !== null && (await deleteOwnBookmark(ctx.db.kysely, user.id, id));
  if (!deleted) throw notFound();
}

/**
 * GET /api/me/bookmarks/{limit} (docs/api §9.1): newest first, only messages the caller can still
 * read; with `expand=message` each message is a card, so the grid renders from one request.
 */
export async function listBookmarks(
  ctx: AppContext,
  user: UserRow,
  rawLimit: string | undefined,
  expand: boolean,
): Promise<Bookmark[]> {
  const limit = parseLimit(rawLimit, LIMITS.bookmarksDefault, LIMITS.bookmarksMax);
  const db = ctx.db.kysely;
  const rows = await listReadableBookmarks(db, user.id, limit);
  if (!expand) return rows.map((b) => presentBookmark(b));
  const ids = rows.map((b) => b.message_id);
  const [views, counts, previews, reactions, mentions] = await Promise.all([
    findMessageViews(db, ids),
    childCounts(db, ids),
    previewsOf(ctx, db, ids),
    reactionSummariesOf(ctx, db, ids, user.id),
    mentionsOf(db, ids),
  ]);
  const byId = new Map(views.map((v) => [v.id, v]));
  return rows.flatMap((b) => {
    const view = byId.get(b.message_id);
    return view === undefined
      ? []
      : [
          presentBookmark(
            b,
            presentPreview(
              view,
              counts.get(b.message_id) ?? 0,
              previews.get(b.message_id) ?? null,
              reactions.get(b.message_id) ?? [],
              mentions.get(b.message_id) ?? [],
            ),
          ),
        ];
  });
}
