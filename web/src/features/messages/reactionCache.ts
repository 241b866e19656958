// Where a message's reactions are kept in the query caches (issue 20): the message itself and its
// card in any cached feed. The answers of the reaction routes and the live `reactions` events both
// go through here, so the bar under a message and the summary on its card stay the same.
import type { QueryClient } from '@tanstack/react-query';
import type { LiveEventData, Message, ReactionSummary } from '@kith/common';
import { type FeedData, keys } from '../../api/queries';

/** The summaries of a live event as the signed-in user sees them: `mine` and `reactionId` are found by their id. */
export function summariesFor(event: LiveEventData<'reactions'>, meId: string | undefined): ReactionSummary[] {
  return event.reactions.map(({ emoji, count, users }) => {
    const mine = users.find((u) => u.id === meId);
    return {
      emoji,
      count,
      mine: mine !== undefined,
      reactionId: mine?.reactionId ?? null,
      users: users.map(({ id, name }) => ({ id, name })),
    };
  });
}

/** Puts `reactions` on the message `messageId` wherever it is cached. */
export function applyReactions(client: QueryClient, messageId: string, reactions: ReactionSummary[]): void {
  client.setQueryData<Message>(keys.message(messageId), (message) =>
    message === undefined ? message : { ...message, reactions },
  );
  client.setQueriesData<FeedData>({ queryKey: keys.feeds }, (feed) => {
    if (feed?.pages === undefined) return feed;
    if (!feed.pages.some((page) => page.messages.some((m) => m.id === messageId))) return feed;
    return {
      ...feed,
      pages: feed.pages.map((page) => ({
        ...page,
        messages: page.messages.map((m) => (m.id === messageId ? { ...m, reactions } : m)),
      })),
    };
  });
}
