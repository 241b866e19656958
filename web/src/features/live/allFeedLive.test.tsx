import { QueryClientProvider, QueryObserver } from '@tanstack/react-query';
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

  it('keeps a live card that a read of the feed still in flight was answered without', async () => {
    const client = createQueryClient();
    render(
      <QueryClientProvider client={client}>
        <Shell />
      </QueryClientProvider>,
    );
    await until(() => server.calls.length === 1);
    server.last.send('retry: 5000\n\n');
    // The screen's feed: every read waits until the test answers it.
    const reads: ((feed: FeedData) => void)[] = [];
    const observer = new QueryObserver<FeedData>(client, {
      queryKey: keys.feed('g1'),
      queryFn: () => new Promise<FeedData>((resolve) => reads.push(resolve)),
      staleTime: Infinity,
    });
    const stop = observer.subscribe(() => undefined);
    await until(() => reads.length === 1);
    reads[0]!(feedOf(card('m1', 'g1')));
    await until(() => client.getQueryData<FeedData>(keys.feed('g1')) !== undefined);

    // A reload asks again; the server answers it before Ben's post, the answer travels while the post's event arrives.
    void observer.refetch();
    await until(() => reads.length === 2);
    const { truncated: _t, unread: _u, ...post } = card('m2', 'g1');
    server.last.send(`id: 1\nevent: message\ndata: ${JSON.stringify(post)}\n\n`);
    await until(() => reads.length === 3);
    reads[1]!(feedOf(card('m1', 'g1')));
    await new Promise((resolve) => setImmediate(resolve));
    expect(client.getQueryData<FeedData>(keys.feed('g1'))?.pages[0]?.messages.map((m) => m.id)).toEqual(['m2', 'm1']);
    // The read made after the post has it too.
    reads[2]!(feedOf(card('m2', 'g1'), card('m1', 'g1')));
    await until(() => !observer.getCurrentResult().isFetching);
    expect(client.getQueryData<FeedData>(keys.feed('g1'))?.pages[0]?.messages.map((m) => m.id)).toEqual(['m2', 'm1']);
    stop();
  });
});
