import type { Message } from '@kith/common';
import type { AppContext } from '../../context.js';
import { featureDisabled, notFound } from '../../lib/errors.js';
import { randomToken } from '../../lib/secrets.js';
import type { UserRow } from '../../db/rows.js';
import { canShareMessage } from './policy.js';
import { presentPublicMessage } from './presenter.js';
import {
  clearPublicToken,
  findPublicToken,
  findViewByPublicToken,
  linkPreviewsOf,
  presentedFilesOf,
  setPublicTokenIfNone,
} from './queries.js';
import { loadReadableMessage, reactionSummariesOf } from './service.js';

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
  const view = await findViewByPublicToken(ctx.db.kysely, token);
  if (view === undefined) throw notFound();
  const [files, linkPreviews, reactions] = await Promise.all([
    presentedFilesOf(ctx, ctx.db.kysely, [view.id]),
    linkPreviewsOf(ctx, ctx.db.kysely, [view]),
    // Visitors see the counts, not who reacted: the public view names no member (issue 20).
    reactionSummariesOf(ctx, ctx.db.kysely, [view.id], null, { users: false }),
  ]);
  return presentPublicMessage(
    view,
    files.get(view.id) ?? [],
    linkPreviews.get(view.id) ?? null,
    reactions.get(view.id) ?? [],
  );
}
