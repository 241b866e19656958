import type { Message } from '@kith/common';
import type { AppContext } from '../../context.js';
import { featureDisabled, notFound } from '../../lib/errors.js';
import { randomToken } from '../../lib/secrets.js';
import type { UserRow } from '../../db/rows.js';
import { canShareMessage } from './policy.js';
import { presentPublicMessage } from './presenter.js';
import { findMessageViews, linkPreviewsOf, presentedFilesOf } from './queries.js';
import { loadReadableMessage } from './service.js';

// Tokens are 43 base64url characters; anything else cannot match and is not looked up.
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * GET /api/messages/{id}/get-public-link (contract §6.6): any member may share; a message has at
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
    await ctx.db.kysely
      .updateTable('messages')
      .set({ public_token: fresh })
      .where('id', '=', message.id)
      .where('public_token', 'is', null)
      .execute();
    const row = await ctx.db.kysely
      .selectFrom('messages')
      .select('public_token')
      .where('id', '=', message.id)
      .executeTakeFirst();
    token = row?.public_token ?? fresh;
  }
  return { token, url: `${ctx.config.publicUrl}/public/${token}` };
}

/** DELETE /api/messages/{id}/public-link (contract §11.3): the token stops working at once. */
export async function revokePublicLink(ctx: AppContext, user: UserRow, id: string | null): Promise<void> {
  const message = await loadReadableMessage(ctx.db.kysely, user, id);
  await ctx.db.kysely.updateTable('messages').set({ public_token: null }).where('id', '=', message.id).execute();
}

/** GET /api/public/{token} (contract §6.7): the read-only message for anyone holding the token. */
export async function getPublicMessage(ctx: AppContext, token: string): Promise<Message> {
  if (!ctx.config.publicLinks || !TOKEN_SHAPE.test(token)) throw notFound();
  const row = await ctx.db.kysely
    .selectFrom('messages')
    .select('id')
    .where('public_token', '=', token)
    .where('is_deleted', '=', 0)
    .executeTakeFirst();
  const [view] = row === undefined ? [] : await findMessageViews(ctx.db.kysely, [row.id]);
  if (view === undefined) throw notFound();
  const [files, linkPreviews] = await Promise.all([
    presentedFilesOf(ctx, ctx.db.kysely, [view.id]),
    linkPreviewsOf(ctx, ctx.db.kysely, [view]),
  ]);
  return presentPublicMessage(view, files.get(view.id) ?? [], linkPreviews.get(view.id) ?? null);
}
