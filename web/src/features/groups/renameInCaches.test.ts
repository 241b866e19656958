import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { Group, Me, Message } from '@kith/common';
import { type FeedData, keys } from '../../api/queries';
import { me, message, NOW_SECONDS } from '../../test/fixtures';
import { renameGroupInCaches } from './renameInCaches';

const family = { id: 'g', entityType: 'group' as const, name: 'Family' };
const club = { id: 'c', entityType: 'group' as const, name: 'Club' };

describe('renameGroupInCaches', () => {
  it('renames the group in the user, the group, its feed and open messages, and nothing else', () => {
    const client = new QueryClient();
    client.setQueryData<Me>(keys.me, { ...me, groups: [family, club] });
    const group: Group = { ...family, createdAt: NOW_SECONDS, lastActivityDate: NOW_SECONDS, users: [] };
    client.setQueryData<Group>(keys.group('g'), group);
    const card = { ...message({ id: 'm1' }), children: 0, truncated: false, unread: false, group: family };
    client.setQueryData(keys.feed('g'), {
      pages: [{ messages: [card], totalItems: 1, nextCursor: null }],
      pageParams: [null],
    });
    client.setQueryData<Message>(keys.message('m1'), message({ id: 'm1' }));
    client.setQueryData<Message>(keys.message('m2'), message({ id: 'm2', group: club }));

    renameGroupInCaches(client, 'g', 'Our family');

    expect(client.getQueryData<Me>(keys.me)?.groups.map((g) => g.name)).toEqual(['Our family', 'Club']);
    expect(client.getQueryData<Group>(keys.group('g'))?.name).toBe('Our family');
    expect(client.getQueryData<FeedData>(keys.feed('g'))?.pages[0]?.messages[0]?.group.name).toBe('Our family');
    expect(client.getQueryData<Message>(keys.message('m1'))?.group?.name).toBe('Our family');
    expect(client.getQueryData<Message>(keys.message('m2'))?.group?.name).toBe('Club');
  });

  it('creates no cache entry that was not there', () => {
    const client = new QueryClient();
    renameGroupInCaches(client, 'g', 'Our family');
    expect(client.getQueryData(keys.me)).toBeUndefined();
    expect(client.getQueryData(keys.group('g'))).toBeUndefined();
    expect(client.getQueryData(keys.feed('g'))).toBeUndefined();
  });
});
