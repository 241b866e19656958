import type { Message } from '@kith/common';
import type { AppContext } from '../../context.js';
import { featureDisabled, notFound } from '../../lib/errors.js';
import { randomToken } from '../../lib/secrets.js';
import type { UserRow } from '../../db/rows.js';
import { canShareMessage } from './policy.js';
import { presentFile } from '../files/presenter.js';
import { filesOfMessages } from '../files/queries.js';
import { presentPublicMessage, presentReactions } from './presenter.js';
import {
  clearPublicToken,
  findPublicToken,
  findPublicViewAndExtras,
  findViewByPublicToken,
  linkPreviewsOf,
  reactionViewsOf,
  setPublicTokenIfNone,
  type MessageView,
  type PublicExtras,
  type ReactionView,
} from './queries.js';
import { loadReadableMessage } from './service.js';

// Tokens are 43 base64url characters; anything else cannot match and is not looked up.
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * GET /api/messages/{id}/get-public-link (docs/api §6.6): any member may share; a message has at
 * most one active link, made on the first call.
 */
export async function getPublicLink(ctx: AppContext, user: UserRow, id: string | null) {
  const message = await loadReadableMessage(ctx.db.kysely, user, id);
  if (!canShareMessage(message)) throw notFound();
  if (!ctx.config.publicLinks) throw featureDisabled('Public links are turned off on this instance');
  let token = message.public_token;
  if (token === null) {
    const fresh = randomToken();
    // Two members asking at once still share one link: only the first write sets it.
    await setPublicTokenIfNone(ctx.db.kysely, message.id, fresh);
    token = (await findPublicToken(ctx.db.kysely, message.id)) ?? fresh;
  }
  return { token, url: `${ctx.config.publicUrl}/public/${token}` };
}

/** DELETE /api/messages/{id}/public-link (docs/api §11.3): the token stops working at once. */
export async function revokePublicLink(ctx: AppContext, user: UserRow, id: string | null): Promise<void> {
  const message = await loadReadableMessage(ctx.db.kysely, user, id);
  await clearPublicToken(ctx.db.kysely, message.id);
}

/** GET /api/public/{token} (docs/api §6.7): the read-only message for anyone holding the token. */
export async function getPublicMessage(ctx: AppContext, token: string): Promise<Message> {
  if (!ctx.config.publicLinks || !TOKEN_SHAPE.test(token)) throw notFound();
  if (ctx.db.dialect === 'postgres') {
    // One round trip for the view, its files and its reactions; only a link preview reads more.
    const found = await findPublicViewAndExtras(ctx.db.kysely, token, ctx.config.reactions);
    if (found === undefined) throw notFound();
    return publicAnswer(ctx, found.view, found.extras);
  }
  // SQLite has no round trip to save: the view, then its files and reactions read apart.
  const view = await findViewByPublicToken(ctx.db.kysely, token);
  if (view === undefined) throw notFound();
  return publicAnswer(ctx, view);
}

/**
 * The public answer of the message `view` (found by its token). `extras`: its files and reactions
 * when read with the view (PostgreSQL), else read here; either way the same presentation.
 */
export async function publicAnswer(ctx: AppContext, view: MessageView, extras?: PublicExtras): Promise<Message> {
  const db = ctx.db.kysely;
  const [read, linkPreviews] = await Promise.all([
    extras ??
      Promise.all([
        filesOfMessages(db, [view.id]),
        ctx.config.reactions ? reactionViewsOf(db, [view.id]) : new Map<string, ReactionView[]>(),
      ]).then(([files, reactions]) => ({ files: files.get(view.id) ?? [], reactions: reactions.get(view.id) ?? [] })),
    linkPreviewsOf(ctx, db, [view]),
  ]);
  return presentPublicMessage(
    view,
    read.files.map((file, index) => presentFile(ctx, file, index)),
    linkPreviews.get(view.id) ?? null,
    // Visitors see the counts, not who reacted: the public view names no member (issue 20).
    ctx.config.reactions ? presentReactions(read.reactions, null, { users: false }) : [],
  );
}
