import type { MessageRow } from '../../db/rows.js';
import type { ReactionRow } from './queries.js';

/**
 * Who may do what with reactions (issue 20). Reading and reacting need the message to be readable
 * first (messages/service.ts `loadReadableMessage`: a member of its group); these rules come after.
 */

/** A placeholder (a deleted reply kept for its replies) has nothing to react to. */
export function canReactTo(message: Pick<MessageRow, 'is_deleted'>): boolean {
  return message.is_deleted === 0;
}

/** Only the person who reacted takes a reaction back. */
export function canRemoveReaction(user: { id: string }, reaction: Pick<ReactionRow, 'user_id'>): boolean {
  return reaction.user_id === user.id;
}

/**
 * Whether a reaction notifies the message's author (issue 20): never for their own reaction or a
 * message without an author, and once per message and reactor, whatever the number of emoji.
 */
export function shouldNotifyAuthor(
  reactorId: string,
  message: Pick<MessageRow, 'author_id'>,
  alreadyNotified: boolean,
): message is Pick<MessageRow, 'author_id'> & { author_id: string } {
  return message.author_id !== null && message.author_id !== reactorId && !alreadyNotified;
}
