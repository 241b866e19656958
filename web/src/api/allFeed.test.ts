import { describe, expect, it } from 'vitest';
import { createQueryClient, keys } from './queries';

describe('the all-groups feed cache', () => {
  const seed = () => {
    const client = createQueryClient();
    for (const key of [keys.allFeed, keys.feed('g1'), keys.feed('g2'), keys.me])
      client.setQueryData(key, { seeded: true });
    const stale = () =>
      Object.fromEntries(
        [keys.allFeed, keys.feed('g1'), keys.feed('g2'), keys.me].map((key) => [
          key.join('/'),
          client.getQueryState(key)?.isInvalidated,
        ]),
      );
    return { client, stale };
  };

  it('goes stale with any group’s feed (a post, an edit, a deletion, leaving)', async () => {
    const { client, stale } = seed();
    await client.invalidateQueries({ queryKey: keys.feed('g1'), refetchType: 'none' });
    expect(stale()).toEqual({ 'feed/all': true, 'feed/g1': true, 'feed/g2': false, me: false });
  });

  it('does not make the group feeds stale when it goes stale itself', async () => {
    const { client, stale } = seed();
    await client.invalidateQueries({ queryKey: keys.allFeed, refetchType: 'none' });
    expect(stale()).toEqual({ 'feed/all': true, 'feed/g1': false, 'feed/g2': false, me: false });
  });

  it('is among the feeds a resync reloads', async () => {
    const { client, stale } = seed();
    await client.invalidateQueries({ queryKey: keys.feeds, refetchType: 'none' });
    expect(stale()).toEqual({ 'feed/all': true, 'feed/g1': true, 'feed/g2': true, me: false });
  });
});
