import { isReactionEmoji, type ReactionSummary } from '@kith/common';
import type { AppContext } from '../../context.js';
import { transaction, type Effects, type Tx } from '../../db/transaction.js';
import type { Body } from '../../lib/body.js';
import { ApiError, featureDisabled, missingField, notFound } from '../../lib/errors.js';
import { newId, parseId } from '../../lib/ids.js';
import { loadReadableMessage, notificationTitle, reactionSummariesOf } from '../messages/service.js';
import { notifyUsers } from '../notifications/service.js';
import type { MessageRow, UserRow } from '../../db/rows.js';
import { canReactTo, canRemoveReaction, shouldNotifyAuthor } from './policy.js';
import { deleteReaction, findReactionOfMessage, hasReactionNotification, insertReaction } from './queries.js';

const invalidReaction = () => new ApiError(400, 'invalid_reaction', 'A reaction must be exactly one emoji', 'reaction');
const notYours = () => new ApiError(403, 'not_author', 'Only the person who reacted can take a reaction back');

/** The operator's switch (REACTIONS_ENABLED): writes answer 403 while reactions are off. */
function requireEnabled(ctx: AppContext): void {
  if (!ctx.config.reactions) throw featureDisabled('Reactions are turned off on this server');
}

/** A message the caller may react to: readable (else 404, like every message route) and not a placeholder. */
async function loadReactable(tx: Tx, user: UserRow, rawId: string): Promise<MessageRow> {
  const message = await loadReadableMessage(tx, user, parseId(rawId));
  if (!canReactTo(message)) throw notFound();
  return message;
}

/** The message's summaries as the caller sees them: the answer of every reactions route. */
async function summaryOf(ctx: AppContext, user: UserRow, messageId: string): Promise<ReactionSummary[]> {
  return (await reactionSummariesOf(ctx, ctx.db.kysely, [messageId], user.id)).get(messageId) ?? [];
}

/** The reaction's value: one emoji (common/src/reactions.ts), else 400 with a code. */
function readReaction(body: Body): string {
  const value = body.raw('reaction');
  if (value === undefined || value === null || value === '') throw missingField('reaction', 'The reaction is required');
  if (!isReactionEmoji(value)) throw invalidReaction();
  return value;
}

/**
 * The author hears once per message and reactor, whatever the emoji (issue 20); never by e-mail:
 * digests select only new_message and new_comment (features/digests).
 */
async function notifyAuthor(tx: Tx, effects: Effects, reactor: UserRow, message: MessageRow, now: number) {
  if (message.author_id === null) return;
  const already = await hasReactionNotification(tx, message.author_id, message.id, reactor.id);
  if (!shouldNotifyAuthor(reactor.id, message, already)) return;
  await notifyUsers(
    tx,
    effects,
    [message.author_id],
    {
      type: 'new_reaction',
      target: message.id,
      fromUserId: reactor.id,
      fromGroupId: message.group_id,
      // As for new_comment: a reaction to a reply names its parent, so the link opens the thread there.
      fromMessageId: message.parent_id ?? message.id,
      title: await notificationTitle(tx, message),
    },
    now,
  );
}

/** POST /api/messages/{id}/reactions: adds one emoji; an emoji the caller already used changes nothing. */
export async function addReaction(
  ctx: AppContext,
  user: UserRow,
  rawId: string,
  body: Body,
): Promise<ReactionSummary[]> {
  requireEnabled(ctx);
  const emoji = readReaction(body);
  const message = await transaction(ctx, async (tx, effects) => {
    const target = await loadReactable(tx, user, rawId);
    const now = ctx.clock.now();
    const row = { id: newId(), message_id: target.id, user_id: user.id, emoji, created_at: now };
    if (await insertReaction(tx, row)) {
      await notifyAuthor(tx, effects, user, target, now);
      effects.publish({ type: 'reactions', groupId: target.group_id, messageId: target.id });
    }
    return target;
  });
  return summaryOf(ctx, user, message.id);
}

/** GET /api/messages/{id}/reactions: `[]` while reactions are off. */
export async function listReactions(ctx: AppContext, user: UserRow, rawId: string): Promise<ReactionSummary[]> {
  const message = await loadReadableMessage(ctx.db.kysely, user, parseId(rawId));
  return summaryOf(ctx, user, message.id);
}

/** DELETE /api/messages/{id}/reactions/{reactionId}: the caller's own reaction only. */
export async function removeReaction(
  ctx: AppContext,
  user: UserRow,
  rawId: string,
  rawReactionId: string,
): Promise<ReactionSummary[]> {
  requireEnabled(ctx);
  const message = await transaction(ctx, async (tx, effects) => {
    const target = await loadReactable(tx, user, rawId);
    const reactionId = parseId(rawReactionId);
    const reaction = reactionId === null ? undefined : await findReactionOfMessage(tx, target.id, reactionId);
    if (reaction === undefined) throw notFound();
    if (!canRemoveReaction(user, reaction)) throw notYours();
    await deleteReaction(tx, reaction.id);
    effects.publish({ type: 'reactions', groupId: target.group_id, messageId: target.id });
    return target;
  });
  return summaryOf(ctx, user, message.id);
}
