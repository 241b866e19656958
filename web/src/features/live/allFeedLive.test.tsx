import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FeedItem } from '@kith/common';
import { createQueryClient, type FeedData, keys } from '../../api/queries';
import { FakeEventServer } from '../../lib/events.fixtures';
import { clearSession, setApiKey } from '../../lib/session';
import { useLiveEvents } from './useLiveEvents';
import { feedItem } from '../../test/fixtures';

// The all-groups feed (docs/api §11.8) follows the live stream as a group's feed does.

function Shell() {
  useLiveEvents('key-1');
  return null;
}

let server: FakeEventServer;

async function until(condition: () => boolean): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('the condition did not hold within 10 s');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const card = (id: string, groupId: string): FeedItem =>
  feedItem({ id, data: { text: id }, group: { id: groupId, entityType: 'group', name: groupId } });

const feedOf = (...cards: FeedItem[]): FeedData => ({
  pages: [{ messages: cards, totalItems: cards.length, nextCursor: null }],
  pageParams: [null],
});

beforeEach(() => {
  server = new FakeEventServer();
  vi.stubGlobal('fetch', server.fetch);
  setApiKey('key-1');
});

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the all-groups feed, live', { timeout: 60_000 }, () => {
  it('puts a new post of any group on top, and goes stale when a thread gets a comment', async () => {
    const client = createQueryClient();
    client.setQueryData(keys.allFeed, feedOf(card('m1', 'g1'), card('m2', 'g2')));
    render(
      <QueryClientProvider client={client}>
        <Shell />
      </QueryClientProvider>,
    );
    await until(() => server.calls.length === 1);
    const { truncated: _t, unread: _u, ...post } = card('m3', 'g2');
    server.last.send(`id: 1\nevent: message\ndata: ${JSON.stringify(post)}\n\n`);
    await until(() => client.getQueryData<FeedData>(keys.allFeed)?.pages[0]?.messages.length === 3);
    const page = client.getQueryData<FeedData>(keys.allFeed)?.pages[0];
    expect(page?.messages.map((m) => m.id)).toEqual(['m3', 'm1', 'm2']);
    expect(page?.totalItems).toBe(3);
    expect(client.getQueryState(keys.allFeed)?.isInvalidated).toBe(false);

    const comment = { ...post, id: 'c1', parent: { id: 'm1', entityType: 'message' }, lineage: ['m1'] };
    server.last.send(`id: 2\nevent: comment\ndata: ${JSON.stringify(comment)}\n\n`);
    await until(() => client.getQueryState(keys.allFeed)?.isInvalidated === true);
  });
});
