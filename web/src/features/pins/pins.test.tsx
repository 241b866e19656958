import { QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, renderHook, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FeedItem, Message } from '@kith/common';
import { createQueryClient, keys, type FeedData } from '../../api/queries';
import { alerts } from '../../lib/alerts';
import { initI18n } from '../../lib/i18n';
import { clearSession, setApiKey } from '../../lib/session';
import { me, message } from '../../test/fixtures';
import { MessageCard } from '../feed/MessageCard';
import { putCardOnTop, withPin } from '../live/useLiveEvents';
import { MessageView } from '../messages/MessageView';
import { firstUnpinnedIndex } from './pinnedFirst';
import { usePin } from './usePin';

// Pinned messages (issue 20): the menu offers pin or unpin as the server's `can.pin` allows, the
// card and the message say "Pinned" in words, and new cards go below the pinned ones.

/** A post of the group page: any member may pin it. */
const post = (overrides: Partial<Message> = {}): Message =>
  message({
    parent: null,
    lineage: [],
    isInFront: true,
    can: { edit: false, delete: false, publish: false, pin: true },
    ...overrides,
  });

function card(id: string, pinned = false): FeedItem {
  const { parent: _p, lineage: _l, files: _f, isPublic: _i, can: _c, children: _ch, group: _g, ...common } = post();
  return {
    ...common,
    id,
    group: { id: 'g', entityType: 'group', name: 'Family' },
    children: 0,
    truncated: false,
    unread: false,
    pinnedInGroup: pinned,
    ...(pinned ? { sortOrder: 1 } : {}),
  };
}

const alertTexts = () => alerts.getSnapshot().map((a) => `${a.style}: ${a.text}`);

function answering(status: number, body: unknown) {
  return vi.fn(
    async () => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }),
  );
}

function showMessage(m: Message) {
  const client = createQueryClient();
  client.setQueryData(keys.me, { ...me, groups: [{ id: 'g', entityType: 'group' as const, name: 'Family' }] });
  client.setQueryData(keys.info, { show: { public_links: false, group_invitation_links: true } });
  client.setQueryData(keys.bookmarks, []);
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <MessageView message={m} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

/** The entries of the actions menu, after opening it. */
function menuButtons(): HTMLElement[] {
  const button = screen.getByRole('button', { name: 'Message actions' });
  fireEvent.click(button);
  const list = document.getElementById(button.getAttribute('aria-controls') ?? '');
  if (list === null) throw new Error('the menu did not open');
  return within(list).getAllByRole('button');
}

beforeAll(async () => {
  await initI18n('en_US');
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  clearSession();
  for (const alert of alerts.getSnapshot()) alerts.dismiss(alert.id);
});

describe('the pin in the message menu', () => {
  it('offers Pin on a message the server lets the caller pin, and nothing when it does not', () => {
    showMessage(post());
    expect(menuButtons().map((b) => b.textContent)).toEqual(['Pin to the top of the group']);
    cleanup();
    showMessage(post({ can: { edit: false, delete: false, publish: false, pin: false } }));
    expect(screen.queryByRole('button', { name: 'Message actions' })).toBeNull();
  });

  it('offers Unpin on a pinned message, which says "Pinned" in words', () => {
    showMessage(post({ pinnedInGroup: true, sortOrder: 2 }));
    expect(screen.getByText('Pinned')).toBeTruthy();
    expect(menuButtons().map((b) => b.textContent)).toEqual(['Unpin']);
    cleanup();
    showMessage(post());
    expect(screen.queryByText('Pinned')).toBeNull();
  });

  it('sends only pinnedInGroup, keeps the answer and reads the feed again', async () => {
    setApiKey('k');
    const answer = post({ pinnedInGroup: true, sortOrder: 1 });
    const fetch = answering(200, answer);
    vi.stubGlobal('fetch', fetch);
    const client = createQueryClient();
    client.setQueryData(keys.feed('g'), { pages: [], pageParams: [] });
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={client}>{children}</QueryClientProvider>
    );
    const { result } = renderHook(() => usePin(), { wrapper });
    await act(() => result.current(post(), true));
    const [url, init] = fetch.mock.calls[0] as unknown as [string, { method: string; body: string }];
    expect(url).toMatch(/\/api\/messages\/m1$/);
    expect(init.method).toBe('PUT');
    expect(JSON.parse(init.body)).toEqual({ pinnedInGroup: true });
    expect(client.getQueryData(keys.message('m1'))).toEqual(answer);
    expect(client.getQueryState(keys.feed('g'))?.isInvalidated).toBe(true);
    expect(alertTexts()).toEqual(['success: The message is pinned at the top of the group.']);
  });

  it('says what to do when the group has its five pins', async () => {
    setApiKey('k');
    vi.stubGlobal(
      'fetch',
      answering(409, { code: 'too_many_pins', message: 'A group can have at most 5 pinned messages.' }),
    );
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={createQueryClient()}>{children}</QueryClientProvider>
    );
    const { result } = renderHook(() => usePin(), { wrapper });
    await act(() => result.current(post(), true));
    expect(alertTexts()).toEqual(['danger: This group already has 5 pinned messages. Unpin one to pin another.']);
  });
});

describe('pinned cards', () => {
  it('say "Pinned" in the card link’s name', () => {
    render(
      <MemoryRouter>
        <MessageCard message={card('a', true)} isNew={false} backUrl="/groups/g" />
        <MessageCard message={card('b')} isNew={false} backUrl="/groups/g" />
      </MemoryRouter>,
    );
    const links = screen.getAllByRole('link');
    expect(links[0]?.textContent).toMatch(/^Pinned/);
    expect(links[1]?.textContent).not.toMatch(/Pinned/);
  });

  it('stay first: a new card goes below them', () => {
    expect(firstUnpinnedIndex([card('a', true), card('b', true), card('c')])).toBe(2);
    expect(firstUnpinnedIndex([card('a', true)])).toBe(1);
    expect(firstUnpinnedIndex([])).toBe(0);
    const feed: FeedData = {
      pages: [
        { messages: [card('p1', true), card('p2', true), card('x'), card('y')], totalItems: 4, nextCursor: null },
      ],
      pageParams: [null],
    };
    const after = putCardOnTop(feed, card('new'));
    expect(after?.pages[0]?.messages.map((m) => m.id)).toEqual(['p1', 'p2', 'new', 'x', 'y']);
    expect(after?.pages[0]?.totalItems).toBe(5);
    // A thread that moved up leaves its place for the top of the unpinned ones.
    expect(putCardOnTop(feed, card('y'))?.pages[0]?.messages.map((m) => m.id)).toEqual(['p1', 'p2', 'y', 'x']);
  });

  it('carry the pin of a live event over to the open message', () => {
    const pinned = withPin(post(), { pinnedInGroup: true, sortOrder: 4 });
    expect(pinned).toMatchObject({ pinnedInGroup: true, sortOrder: 4 });
    const unpinned = withPin(pinned, { pinnedInGroup: false });
    expect(unpinned.pinnedInGroup).toBe(false);
    expect(unpinned).not.toHaveProperty('sortOrder');
  });
});
