import { QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Message, ReactionSummary } from '@kith/common';
import { createQueryClient, keys } from '../../api/queries';
import { alerts } from '../../lib/alerts';
import { initI18n } from '../../lib/i18n';
import { clearSession, setApiKey } from '../../lib/session';
import { message } from '../../test/fixtures';
import { applyReactions, summariesFor } from './reactionCache';
import { ReactionSummaryLine } from '../feed/ReactionSummaryLine';
import { Reactions } from './Reactions';

const thumbs: ReactionSummary = {
  emoji: '👍',
  count: 2,
  mine: true,
  reactionId: 'r-mine',
  users: [
    { id: 'ana', name: 'Ana' },
    { id: 'ben', name: 'Ben' },
  ],
};
const party: ReactionSummary = {
  emoji: '🎉',
  count: 1,
  mine: false,
  reactionId: null,
  users: [{ id: 'ben', name: 'Ben' }],
};

function answering(body: unknown, status = 200) {
  return vi.fn(
    async (_input: string, _init?: RequestInit) =>
      new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }),
  );
}

function show(reactions: ReactionSummary[], enabled = true) {
  const client = createQueryClient();
  client.setQueryData(keys.info, { reactions: enabled });
  client.setQueryData<Message>(keys.message('m1'), message({ reactions }));
  render(
    <QueryClientProvider client={client}>
      <Reactions messageId="m1" reactions={reactions} />
    </QueryClientProvider>,
  );
  return client;
}

beforeAll(async () => {
  await initI18n('en_US');
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  clearSession();
  for (const alert of alerts.getSnapshot()) alerts.dismiss(alert.id);
});

describe('Reactions', () => {
  it('shows one button per emoji with its count, pressed when the user used it, named for screen readers', () => {
    show([thumbs, party]);
    const mine = screen.getByRole('button', { name: 'Reaction 👍: 2' });
    expect(mine.getAttribute('aria-pressed')).toBe('true');
    expect(mine.textContent).toBe('👍2');
    expect(screen.getByRole('button', { name: 'Reaction 🎉: 1' }).getAttribute('aria-pressed')).toBe('false');
    expect(screen.getByRole('button', { name: 'Add a reaction' })).toBeTruthy();
  });

  it('says who reacted on hover and on keyboard focus', () => {
    show([thumbs]);
    const button = screen.getByRole('button', { name: 'Reaction 👍: 2' });
    expect(button.getAttribute('title')).toBe('Ana and Ben reacted with 👍');
    fireEvent.mouseEnter(button);
    expect(screen.getByRole('tooltip').textContent).toBe('Ana and Ben reacted with 👍');
    expect(button.getAttribute('aria-describedby')).toBe(screen.getByRole('tooltip').id);
    fireEvent.mouseLeave(button);
    expect(screen.queryByRole('tooltip')).toBeNull();
    fireEvent.focus(button);
    expect(screen.getByRole('tooltip').textContent).toContain('Ana');
  });

  it('shows the names on a long press on a touch screen, without toggling', () => {
    vi.useFakeTimers();
    const fetch = answering([]);
    vi.stubGlobal('fetch', fetch);
    show([party]);
    const button = screen.getByRole('button', { name: 'Reaction 🎉: 1' });
    fireEvent.pointerDown(button, { pointerType: 'touch' });
    act(() => {
      vi.advanceTimersByTime(600);
    });
    expect(screen.getByRole('tooltip').textContent).toBe('Ben reacted with 🎉');
    fireEvent.pointerUp(button, { pointerType: 'touch' });
    fireEvent.click(button);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('takes back the user’s own reaction by its id and puts the answer in the cache', async () => {
    setApiKey('k');
    const fetch = answering([{ ...thumbs, count: 1, mine: false, reactionId: null, users: [thumbs.users[1]] }]);
    vi.stubGlobal('fetch', fetch);
    const client = show([thumbs]);
    fireEvent.click(screen.getByRole('button', { name: 'Reaction 👍: 2' }));
    await vi.waitFor(() => expect(client.getQueryData<Message>(keys.message('m1'))?.reactions[0]?.count).toBe(1));
    const [url, init] = fetch.mock.calls[0]!;
    expect(String(url)).toMatch(/\/api\/messages\/m1\/reactions\/r-mine$/);
    expect(init?.method).toBe('DELETE');
  });

  it('adds another person’s emoji, and one picked from the picker, with POST', async () => {
    setApiKey('k');
    const fetch = answering([party]);
    vi.stubGlobal('fetch', fetch);
    show([party]);
    fireEvent.click(screen.getByRole('button', { name: 'Reaction 🎉: 1' }));
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    expect(JSON.parse(fetch.mock.calls[0]![1]?.body as string)).toEqual({ reaction: '🎉' });
    // One call at a time: the buttons come back once the answer is in.
    await vi.waitFor(() =>
      expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Reaction 🎉: 1' }).disabled).toBe(false),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Add a reaction' }));
    const picker = screen.getByRole('group', { name: 'Add a reaction' });
    expect(within(picker).getAllByRole('button').length).toBe(7); // six emoji and "More emoji"
    fireEvent.click(within(picker).getByRole('button', { name: 'More emoji' }));
    expect(within(picker).getAllByRole('button').length).toBeGreaterThan(40);
    fireEvent.click(within(picker).getByRole('button', { name: 'React with 🔥' }));
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(2));
    expect(String(fetch.mock.calls[1]![0])).toMatch(/\/api\/messages\/m1\/reactions$/);
    expect(JSON.parse(fetch.mock.calls[1]![1]?.body as string)).toEqual({ reaction: '🔥' });
  });

  it('shows the server’s refusal as an alert and changes nothing', async () => {
    setApiKey('k');
    vi.stubGlobal('fetch', answering({ code: 'invalid_reaction', message: 'x', error: 'x', field: 'reaction' }, 400));
    const client = show([party]);
    fireEvent.click(screen.getByRole('button', { name: 'Reaction 🎉: 1' }));
    await vi.waitFor(() =>
      expect(alerts.getSnapshot().map((a) => a.text)).toEqual(['A reaction must be a single emoji.']),
    );
    expect(client.getQueryData<Message>(keys.message('m1'))?.reactions).toEqual([party]);
  });

  it('shows nothing when the server has reactions turned off', () => {
    show([], false);
    expect(screen.queryByRole('button')).toBeNull();
  });
});

describe('ReactionSummaryLine (feed cards)', () => {
  it('lists each emoji with its count, named for screen readers, with who reacted in the tooltip', () => {
    render(<ReactionSummaryLine reactions={[thumbs, party]} />);
    const line = screen.getByRole('img', { name: 'Reactions: 👍 2 🎉 1' });
    expect(line.getAttribute('title')).toBe('Ana and Ben reacted with 👍\nBen reacted with 🎉');
  });

  it('shows nothing without reactions', () => {
    const { container } = render(<ReactionSummaryLine reactions={[]} />);
    expect(container.textContent).toBe('');
  });
});

describe('reaction caches', () => {
  it('finds the user’s own reaction in a live event by their id', () => {
    const event = {
      messageId: 'm1',
      groupId: 'g',
      rootId: 'm1',
      reactions: [
        {
          emoji: '👍',
          count: 2,
          users: [
            { id: 'ana', name: 'Ana', reactionId: 'ra' },
            { id: 'ben', name: 'Ben', reactionId: 'rb' },
          ],
        },
      ],
    };
    expect(summariesFor(event, 'ben')).toEqual([{ ...thumbs, reactionId: 'rb' }]);
    expect(summariesFor(event, 'zed')[0]).toMatchObject({ mine: false, reactionId: null });
  });

  it('puts the summaries on the message and on its card in every cached feed', () => {
    const client = createQueryClient();
    client.setQueryData<Message>(keys.message('m1'), message({ reactions: [] }));
    const card = { ...message({ id: 'm1' }), children: 0, truncated: false, unread: false };
    const other = { ...card, id: 'm2' };
    client.setQueryData(keys.feed('g'), {
      pages: [{ messages: [other, card], totalItems: 2, nextCursor: null }],
      pageParams: [null],
    });
    applyReactions(client, 'm1', [party]);
    expect(client.getQueryData<Message>(keys.message('m1'))?.reactions).toEqual([party]);
    const feed = client.getQueryData<{ pages: { messages: { id: string; reactions: unknown }[] }[] }>(keys.feed('g'));
    expect(feed?.pages[0]?.messages.map((m) => [m.id, m.reactions])).toEqual([
      ['m2', []],
      ['m1', [party]],
    ]);
  });
});
