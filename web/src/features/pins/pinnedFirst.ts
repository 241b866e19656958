import type { FeedItem } from '@kith/common';

/**
 * Where a card that is not pinned goes on a feed screen: after the pinned cards, which the server
 * lists first in pin order (docs/api §11.1). A new post or a thread that moved up lands here, not
 * above the pins.
 */
export function firstUnpinnedIndex(cards: readonly Pick<FeedItem, 'pinnedInGroup'>[]): number {
  const index = cards.findIndex((card) => !card.pinnedInGroup);
  return index < 0 ? cards.length : index;
}
