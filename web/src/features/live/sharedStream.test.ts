import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StreamEvent } from '../../lib/events';
import { FakeEventServer, FakeLocks, installLocks } from '../../lib/events.fixtures';
import { channelNameOf, openSharedEventStream } from './sharedStream';

/** One browser tab of the app: what it was given, and how to close it. */
interface Tab {
  events: StreamEvent[];
  statuses: boolean[];
  /** What onLeaderStatus told this tab: only the tab reading the stream hears it (presence). */
  leaderStatuses: boolean[];
  unauthorized: number;
  close(): void;
}

const NAME = channelNameOf('key-1');
// Messages between tabs and lock grants take a few event-loop turns; a busy machine may be slow.
const WAIT = { timeout: 10_000, interval: 10 };

let server: FakeEventServer;
let locks: FakeLocks;
let uninstall: () => void;
const tabs: Tab[] = [];

function openTab(): Tab {
  const tab: Tab = { events: [], statuses: [], leaderStatuses: [], unauthorized: 0, close: () => {} };
  tab.close = openSharedEventStream({
    name: NAME,
    getKey: () => 'key-1',
    onEvent: (event) => tab.events.push(event),
    onStatus: (connected) => tab.statuses.push(connected),
    onLeaderStatus: (connected) => tab.leaderStatuses.push(connected),
    onUnauthorized: () => (tab.unauthorized += 1),
    onResync: () => tab.events.push({ id: null, event: 'resync', data: '{}' }),
    random: () => 0,
  });
  tabs.push(tab);
  return tab;
}

const ids = (tab: Tab) => tab.events.map((e) => e.id);

beforeEach(() => {
  server = new FakeEventServer();
  vi.stubGlobal('fetch', server.fetch);
  locks = new FakeLocks();
  uninstall = installLocks(locks);
});

afterEach(() => {
  for (const tab of tabs.splice(0)) tab.close();
  uninstall();
  vi.unstubAllGlobals();
});

describe('one stream shared by the tabs of a browser', { timeout: 60_000 }, () => {
  it('names the lock after the key without showing it', () => {
    expect(NAME).toMatch(/^kith-live-[0-9a-f]{8}$/);
    expect(NAME).not.toContain('key-1');
    expect(channelNameOf('key-2')).not.toBe(NAME);
  });

  it('opens one stream for three tabs, and the followers receive the leader’s events', async () => {
    const leader = openTab();
    await vi.waitFor(() => expect(server.calls).toHaveLength(1), WAIT);
    server.last.send('retry: 5000\n\n');
    await vi.waitFor(() => expect(leader.statuses).toEqual([true]), WAIT);
    const followers = [openTab(), openTab()];
    // A tab that arrives asks the leader how the stream is (every follower hears the answer).
    for (const tab of followers) await vi.waitFor(() => expect(tab.statuses.at(-1)).toBe(true), WAIT);

    server.last.send('id: 5\nevent: message\ndata: {"id":"m1"}\n\nid: 6\nevent: notification\ndata: {"id":"n1"}\n\n');
    for (const tab of [leader, ...followers]) {
      await vi.waitFor(() => expect(ids(tab)).toEqual(['5', '6']), WAIT);
      expect(tab.events[0]).toEqual({ id: '5', event: 'message', data: '{"id":"m1"}' });
    }
    expect(server.calls).toHaveLength(1);
    // Only the tab that reads the stream reports presence for the browser.
    expect(leader.leaderStatuses).toEqual([true]);
    for (const tab of followers) expect(tab.leaderStatuses).toEqual([]);
  });

  it('hands the stream over when the leader tab closes, resuming after the last event it passed on', async () => {
    const first = openTab();
    await vi.waitFor(() => expect(server.calls).toHaveLength(1), WAIT);
    const second = openTab();
    const third = openTab();
    server.last.send('retry: 5000\n\nid: 8\nevent: message\ndata: {}\n\nid: 9\nevent: comment\ndata: {}\n\n');
    for (const tab of [second, third]) await vi.waitFor(() => expect(ids(tab)).toEqual(['8', '9']), WAIT);

    first.close();
    expect(server.calls[0]!.aborted).toBe(true);
    // The next tab in line takes the lock and opens the stream where the first one stopped.
    await vi.waitFor(() => expect(server.calls).toHaveLength(2), WAIT);
    expect(server.last.headers['Last-Event-ID']).toBe('9');
    server.last.send('retry: 5000\n\nid: 10\nevent: message\ndata: {}\n\n');
    for (const tab of [second, third]) await vi.waitFor(() => expect(ids(tab)).toEqual(['8', '9', '10']), WAIT);
    expect(ids(first)).toEqual(['8', '9']);

    // And again, to the last tab.
    second.close();
    await vi.waitFor(() => expect(server.calls).toHaveLength(3), WAIT);
    expect(server.last.headers['Last-Event-ID']).toBe('10');
    expect(server.calls.filter((call) => !call.aborted)).toHaveLength(1);
  });

  it('tells every tab to reload when the new leader has no event to resume from', async () => {
    const first = openTab();
    await vi.waitFor(() => expect(server.calls).toHaveLength(1), WAIT);
    server.last.send('retry: 5000\n\n');
    const others = [openTab(), openTab()];
    for (const tab of others) await vi.waitFor(() => expect(tab.statuses).toContain(true), WAIT);
    first.close();
    await vi.waitFor(() => expect(server.calls).toHaveLength(2), WAIT);
    expect(server.last.headers).not.toHaveProperty('Last-Event-ID');
    server.last.send('retry: 5000\n\n');
    // Events of the gap cannot be replayed without an id: the new leader resyncs, and so do the others.
    for (const tab of others) await vi.waitFor(() => expect(tab.events.map((e) => e.event)).toEqual(['resync']), WAIT);
  });

  it('signs every tab out when the server refuses the key', async () => {
    server.queue({ status: 401, body: { code: 'invalid_api_key' } });
    const leader = openTab();
    const follower = openTab();
    await vi.waitFor(() => expect(leader.unauthorized).toBe(1), WAIT);
    await vi.waitFor(() => expect(follower.unauthorized).toBe(1), WAIT);
    expect(server.calls).toHaveLength(1);
  });

  it('falls back to a stream per tab without Web Locks', async () => {
    uninstall();
    const tabsWithout = [openTab(), openTab()];
    await vi.waitFor(() => expect(server.calls).toHaveLength(2), WAIT);
    server.calls[0]!.send('id: 3\nevent: message\ndata: {}\n\n');
    await vi.waitFor(() => expect(ids(tabsWithout[0]!)).toEqual(['3']), WAIT);
    expect(ids(tabsWithout[1]!)).toEqual([]);
    // Each tab reads its own stream, so each one reports presence.
    expect(tabsWithout[0]!.leaderStatuses).toEqual([true]);
  });
});
