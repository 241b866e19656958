import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createQueryClient, keys } from '../../api/queries';
import type { Message } from '@kith/common';
import { me, message } from '../../test/fixtures';
import { initI18n } from '../../lib/i18n';
import { MessageView } from './MessageView';

// The actions menu follows the server's `message.can` and nothing else: not who the author is.

function messageBy(can: Message['can'], author = 'ben'): Message {
  return message({ author: { id: author, entityType: 'user', name: 'Ben', avatar: null }, can });
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
    show(messageBy({ edit: true, delete: true, publish: true }));
    expect(menu()).toEqual(['Edit', 'Publish in the group', 'Delete']);
  });

  it('leaves out publish when the server says there is nothing to publish', () => {
    show(messageBy({ edit: true, delete: true, publish: false }));
    expect(menu()).toEqual(['Edit', 'Delete']);
  });

  it('shows no menu when the server allows nothing, even on the caller’s own message', () => {
    show(messageBy({ edit: false, delete: false, publish: false }, 'me'));
    expect(menu()).toEqual([]);
  });
});
