import { describe, expect, it } from 'vitest';
import type { FeedItem } from '@kith/common';
import { visibleCards } from './allGroups';
import { feedItem } from '../../test/fixtures';

const card = (id: string, groupId: string, groupName: string): FeedItem =>
  feedItem({ id, data: { text: id }, group: { id: groupId, entityType: 'group', name: groupName } });

describe('visibleCards (the all-groups feed)', () => {
  const cards = [card('m1', 'g1', 'Family'), card('m2', 'g2', 'Friends'), card('m3', 'g1', 'Family')];

  it('names each card by the user’s group list, which knows a rename first', () => {
    const shown = visibleCards(cards, [
      { id: 'g1', entityType: 'group', name: 'The Family' },
      { id: 'g2', entityType: 'group', name: 'Friends' },
    ]);
    expect(shown.map((c) => [c.card.id, c.groupName])).toEqual([
      ['m1', 'The Family'],
      ['m2', 'Friends'],
      ['m3', 'The Family'],
    ]);
  });

  it('leaves out the cards of a group the user is no longer in', () => {
    const shown = visibleCards(cards, [{ id: 'g2', entityType: 'group', name: 'Friends' }]);
    expect(shown.map((c) => c.card.id)).toEqual(['m2']);
  });

  it('shows every card under its own name while the user is not loaded, each message once', () => {
    const shown = visibleCards([...cards, card('m1', 'g1', 'Family')], undefined);
    expect(shown.map((c) => [c.card.id, c.groupName])).toEqual([
      ['m1', 'Family'],
      ['m2', 'Friends'],
      ['m3', 'Family'],
    ]);
  });
});
