import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createQueryClient, keys } from '../../api/queries';
import type { Me, Message } from '@kith/common';
import { initI18n } from '../../lib/i18n';
import { MessageView } from './MessageView';

// The actions menu follows the server's `message.can` and nothing else: not who the author is.

const me: Me = {
  id: 'me',
  entityType: 'user',
  name: 'Ana',
  login: 'ana@example.org',
  avatar: null,
  groups: [],
  data: {},
  createdAt: 1767268800,
  lastActivityDate: 1767268800,
};

function message(can: Message['can'], author = 'ben'): Message {
  return {
    id: 'm1',
    entityType: 'message',
    type: 'standard',
    createdAt: 1767268800,
    lastActivityDate: 1767268800,
    data: { text: 'Beach day' },
    author: { id: author, entityType: 'user', name: 'Ben', avatar: null },
    group: { id: 'g', entityType: 'group', name: 'Family' },
    parent: { id: 'root', entityType: 'message' },
    lineage: ['root'],
    children: [],
    files: [],
    preview: null,
    isInFront: false,
    isPublic: false,
    isDeleted: false,
    can,
  };
}

function show(m: Message) {
  const client = createQueryClient();
  client.setQueryData(keys.me, me);
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <MessageView message={m} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

/** The entries of the actions menu, after opening it; [] when there is no menu. */
function menu(): string[] {
  const button = screen.queryByRole('button', { name: 'Message actions' });
  if (button === null) return [];
  fireEvent.click(button);
  return screen
    .getAllByRole('button')
    .filter((b) => b !== button)
    .map((b) => b.textContent ?? '');
}

beforeAll(async () => {
  await initI18n('en_US');
});

afterEach(cleanup);

describe('MessageView actions', () => {
  it('offers edit, publish and delete when the server allows all three', () => {
    show(message({ edit: true, delete: true, publish: true }));
    expect(menu()).toEqual(['Edit', 'Publish in the group', 'Delete']);
  });

  it('leaves out publish when the server says there is nothing to publish', () => {
    show(message({ edit: true, delete: true, publish: false }));
    expect(menu()).toEqual(['Edit', 'Delete']);
  });

  it('shows no menu when the server allows nothing, even on the caller’s own message', () => {
    show(message({ edit: false, delete: false, publish: false }, 'me'));
    expect(menu()).toEqual([]);
  });
});
