// The rule of the all-groups feed's list that needs no React (docs/api §11.8).
import type { FeedItem, Me } from '@kith/common';

/** A card of the all-groups feed with the name its group is shown under. */
export interface AllGroupsCard {
  card: FeedItem;
  groupName: string;
}

/**
 * The cards to show: those of groups the user is still in, each named as the user's group list
 * names the group now (a rename made since the page loaded shows at once), once per message.
 * Before the user is known, every card, under the name it came with.
 */
export function visibleCards(cards: readonly FeedItem[], groups: Me['groups'] | undefined): AllGroupsCard[] {
  const names = groups === undefined ? null : new Map(groups.map((group) => [group.id, group.name]));
  const seen = new Set<string>();
  const shown: AllGroupsCard[] = [];
  for (const card of cards) {
    if (seen.has(card.id)) continue;
    const name = names === null ? card.group.name : names.get(card.group.id);
    if (name === undefined) continue;
    seen.add(card.id);
    shown.push({ card, groupName: name });
  }
  return shown;
}
