import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQueryClient, keys } from '../../api/queries';
import type { Bookmark, Message } from '@kith/common';
import { me, message } from '../../test/fixtures';
import { initI18n } from '../../lib/i18n';
import { MessageView } from './MessageView';

// The actions menu follows the server's `message.can` and nothing else: not who the author is.

function messageBy(can: Message['can'], author = 'ben'): Message {
  return message({ author: { id: author, entityType: 'user', name: 'Ben', avatar: null }, can });
}

interface Setup {
  groups?: number;
  publicLinks?: boolean;
  bookmarks?: Bookmark[];
}

function show(m: Message, { groups = 1, publicLinks = false, bookmarks = [] }: Setup = {}) {
  const client = createQueryClient();
  client.setQueryData(keys.me, {
    ...me,
    groups: Array.from({ length: groups }, (_, i) => ({ id: `g${i}`, entityType: 'group' as const, name: `G${i}` })),
  });
  client.setQueryData(keys.info, { show: { public_links: publicLinks, group_invitation_links: true } });
  client.setQueryData(keys.bookmarks, bookmarks);
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <MessageView message={m} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return client;
}

/** The entries of the actions menu, after opening it; [] when there is no menu. */
function menu(): string[] {
  const button = screen.queryByRole('button', { name: 'Message actions' });
  if (button === null) return [];
  fireEvent.click(button);
  const list = document.getElementById(button.getAttribute('aria-controls') ?? '');
  if (list === null) throw new Error('the menu did not open');
  return within(list)
    .getAllByRole('button')
    .map((b) => b.textContent ?? '');
}

beforeAll(async () => {
  await initI18n('en_US');
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('MessageView actions', () => {
  it('offers edit, publish and delete when the server allows all three', () => {
    show(messageBy({ edit: true, delete: true, publish: true, pin: false }));
    expect(menu()).toEqual(['Edit', 'Publish in the group', 'Delete']);
  });

  it('leaves out publish when the server says there is nothing to publish', () => {
    show(messageBy({ edit: true, delete: true, publish: false, pin: false }));
    expect(menu()).toEqual(['Edit', 'Delete']);
  });

  it('shows no menu when the server allows nothing, even on the caller’s own message', () => {
    show(messageBy({ edit: false, delete: false, publish: false, pin: false }, 'me'));
    expect(menu()).toEqual([]);
  });

  it('offers sharing to another group only to someone in more than one group', () => {
    show(messageBy({ edit: false, delete: false, publish: false, pin: false }), { groups: 2 });
    expect(menu()).toEqual(['Share to another group']);
    cleanup();
    show(messageBy({ edit: true, delete: false, publish: false, pin: false }), { groups: 1 });
    expect(menu()).toEqual(['Edit']);
  });

  it('offers the public link only when the instance shows public links', () => {
    show(messageBy({ edit: false, delete: false, publish: false, pin: false }), { publicLinks: true });
    expect(menu()).toEqual(['Public link']);
  });
});

describe('MessageView bookmark button and public badge', () => {
  const bookmark: Bookmark = {
    id: 'b1',
    entityType: 'bookmark',
    createdAt: 0,
    user: { id: 'me', entityType: 'user' },
    message: { id: 'm1', entityType: 'message' },
  };

  it('says by aria-pressed whether the message is bookmarked', () => {
    show(message());
    expect(screen.getByRole('button', { name: 'Bookmark' }).getAttribute('aria-pressed')).toBe('false');
    cleanup();
    show(message(), { bookmarks: [bookmark] });
    expect(screen.getByRole('button', { name: 'Bookmark' }).getAttribute('aria-pressed')).toBe('true');
  });

  it('marks a message with a public link', () => {
    show(message({ isPublic: true }));
    expect(screen.getByText('Public')).toBeTruthy();
    cleanup();
    show(message({ isPublic: false }));
    expect(screen.queryByText('Public')).toBeNull();
  });
});

describe('MessageView editing', () => {
  it('keeps the saved message when a read of it that started before the save answers after it', async () => {
    const before = messageBy({ edit: true, delete: false, publish: false, pin: false }, 'me');
    const saved: Message = { ...before, data: { text: 'Beach day, again' } };
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: string, init?: RequestInit) =>
        init?.method === 'PUT' && input.endsWith(`/api/messages/${before.id}`)
          ? Response.json(saved)
          : Response.json([]),
      ),
    );
    const client = show(before);
    // A read of the message is in flight (a live event asked for it) when the author saves.
    let answerOldRead: (old: Message) => void = () => undefined;
    void client.prefetchQuery({
      queryKey: keys.message(before.id),
      queryFn: () => new Promise<Message>((resolve) => (answerOldRead = resolve)),
    });
    fireEvent.click(screen.getByRole('button', { name: 'Message actions' }));
    fireEvent.click(screen.getByRole('button', { name: 'Edit' }));
    fireEvent.change(screen.getByLabelText('Reply'), { target: { value: 'Beach day, again' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(client.getQueryData<Message>(keys.message(before.id))?.data.text).toBe('Beach day, again'),
    );
    // The old read answers last: it must not put the old text back.
    answerOldRead(before);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(client.getQueryData<Message>(keys.message(before.id))?.data.text).toBe('Beach day, again');
  });
});
