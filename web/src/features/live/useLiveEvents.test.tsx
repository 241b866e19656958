import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, render } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeEventServer } from '../../lib/events.fixtures';
import { clearSession, setApiKey } from '../../lib/session';
import type { Notification } from '@kith/common';
import { keys } from '../../api/queries';
import { me } from '../../test/fixtures';
import { RELEASE_AFTER_MS, useLiveEvents } from './useLiveEvents';
import { deviceId } from '../push/presence';
import { noteAnswerEventId, resetEventClock } from '../../lib/eventClock';

function Shell({ apiKey }: { apiKey: string | null }) {
  useLiveEvents(apiKey);
  return null;
}

let server: FakeEventServer;
const client = new QueryClient();

/** Waits (in real time) for the stream's work to settle: a few event-loop turns. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('the condition did not hold within 10 s');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The signed-in shell, mounted again as a new instance on every navigation (`path`). */
function shell(path: string, apiKey: string | null = 'key-1') {
  return (
    <QueryClientProvider client={client}>
      <Shell key={path} apiKey={apiKey} />
    </QueryClientProvider>
  );
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  server = new FakeEventServer();
  vi.stubGlobal('fetch', server.fetch);
  setApiKey('key-1');
});

afterEach(() => {
  cleanup();
  clearSession();
  resetEventClock();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('useLiveEvents', { timeout: 60_000 }, () => {
  it('keeps one stream while the shell is mounted again on each navigation', async () => {
    const view = render(shell('/groups/a'));
    await until(() => server.calls.length === 1);
    for (const path of ['/messages/m', '/groups/a', '/groups/b/write', '/']) view.rerender(shell(path));
    // A screen whose code loads first leaves no shell mounted for a moment.
    view.rerender(<QueryClientProvider client={client}>{null}</QueryClientProvider>);
    await act(() => vi.advanceTimersByTimeAsync(RELEASE_AFTER_MS - 100));
    view.rerender(shell('/groups/b'));
    await act(() => vi.advanceTimersByTimeAsync(10 * RELEASE_AFTER_MS));
    expect(server.calls).toHaveLength(1);
    expect(server.last.aborted).toBe(false);
  });

  it("names this browser's presence id on the stream, so the server forgets its presence when the stream ends", async () => {
    render(shell('/groups/a'));
    await until(() => server.calls.length === 1);
    expect(server.last.url).toBe(`/api/events?device=${deviceId()}`);
  });

  it('lets the stream go a few seconds after the shell is gone for good', async () => {
    const view = render(shell('/groups/a'));
    await until(() => server.calls.length === 1);
    view.unmount();
    await act(() => vi.advanceTimersByTimeAsync(RELEASE_AFTER_MS - 1));
    expect(server.last.aborted).toBe(false);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(server.last.aborted).toBe(true);
  });

  it('closes the stream at once on sign-out, even while it is kept for a remount', async () => {
    const view = render(shell('/groups/a'));
    await until(() => server.calls.length === 1);
    view.unmount();
    act(() => clearSession());
    expect(server.last.aborted).toBe(true);
    await act(() => vi.advanceTimersByTimeAsync(10 * RELEASE_AFTER_MS));
    expect(server.calls).toHaveLength(1);
  });

  it('reads again, once, what the screens read before the first stream opened', async () => {
    // Read by the page load before the stream was open: a post made in between reached no stream.
    client.setQueryData(keys.feed('g'), { pages: [], pageParams: [] });
    client.setQueryData(keys.notifications, []);
    render(shell('/groups/g'));
    await until(() => server.calls.length === 1);
    server.last.send('retry: 5000\n\n');
    await until(() => client.getQueryState(keys.feed('g'))?.isInvalidated === true);
    expect(client.getQueryState(keys.notifications)?.isInvalidated).toBe(true);

    // Read again; the stream drops and resumes where it stopped: the server replays, nothing is re-read.
    client.setQueryData(keys.feed('g'), { pages: [], pageParams: [] });
    server.last.send('id: 5\nevent: ping\ndata: {}\n\n');
    server.last.end();
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    await until(() => server.calls.length === 2);
    expect(server.last.headers['Last-Event-ID']).toBe('5');
    server.last.send('retry: 5000\n\n');
    await act(() => vi.advanceTimersByTimeAsync(100));
    expect(client.getQueryState(keys.feed('g'))?.isInvalidated).toBe(false);
  });

  it('reads nothing again when no event came between what the screens read and the first stream', async () => {
    client.setQueryData(keys.feed('g'), { pages: [], pageParams: [] });
    noteAnswerEventId('7');
    server.eventId = '7';
    render(shell('/groups/g'));
    await until(() => server.calls.length === 1);
    server.last.send('retry: 5000\n\n');
    await act(() => vi.advanceTimersByTimeAsync(100));
    expect(client.getQueryState(keys.feed('g'))?.isInvalidated).toBe(false);
    // An answer read before an event the stream started after lands now: the screens read again.
    noteAnswerEventId('6');
    expect(client.getQueryState(keys.feed('g'))?.isInvalidated).toBe(true);
  });

  it("re-reads the user's groups, the group and open messages when another member renames a group", async () => {
    client.setQueryData(keys.me, me);
    client.setQueryData(keys.group('g'), { id: 'g' });
    client.setQueryData(keys.group('other'), { id: 'other' });
    client.setQueryData(keys.notifications, []);
    render(shell('/groups/g'));
    await until(() => server.calls.length === 1);
    // The open message is read after the first stream's catch-up, which would mark it too.
    server.last.send('retry: 5000\n\n');
    await until(() => client.getQueryState(keys.notifications)?.isInvalidated === true);
    client.setQueryData(keys.message('m1'), { id: 'm1' });
    const rename: Notification = {
      id: 'n1',
      entityType: 'notification',
      type: 'group_name_change',
      createdAt: 0,
      read: false,
      target: 'g',
      data: { previousGroupName: 'Family', newGroupName: 'Our family' },
      fromUser: { id: 'ben', entityType: 'user', name: 'Ben', avatar: null },
      fromGroup: { id: 'g', entityType: 'group', name: 'Our family' },
      fromMessage: null,
      title: '',
      parentAuthorName: '',
      miniature: null,
    };
    server.last.send(`id: 1\nevent: notification\ndata: ${JSON.stringify(rename)}\n\n`);
    await until(() => client.getQueryState(keys.me)?.isInvalidated === true);
    expect(client.getQueryState(keys.group('g'))?.isInvalidated).toBe(true);
    expect(client.getQueryState(keys.message('m1'))?.isInvalidated).toBe(true);
    expect(client.getQueryState(keys.group('other'))?.isInvalidated).toBe(false);
  });
});
