import type { AppContext } from '../../context.js';
import type { Tx } from '../../db/transaction.js';
import { upsertReplyAddress } from './queries.js';
import { newReplyAddressId, replyAddress, replyToken } from './token.js';

/**
 * The address a reply of `userId` about `messageId` goes to (docs/api §11.11), or null when reply
 * by e-mail is off (`REPLY_EMAIL` unset). Written in the caller's transaction, the one that queues
 * the mail carrying it: the address works for `REPLY_TOKEN_DAYS` from now, and any older mail about
 * the same message gets the same, renewed address.
 */
export async function replyAddressFor(
  ctx: AppContext,
  tx: Tx,
  userId: string,
  messageId: string,
): Promise<string | null> {
  const replies = ctx.config.mailReplies;
  if (replies === null) return null;
  const id = await upsertReplyAddress(tx, newReplyAddressId(), userId, messageId, ctx.clock.now() + replies.tokenTtlMs);
  return replyAddress(replies, replyToken(ctx.config.secretKey, id));
}
