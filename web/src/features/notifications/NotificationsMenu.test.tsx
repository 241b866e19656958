import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQueryClient, keys } from '../../api/queries';
import { initI18n } from '../../lib/i18n';
import { commentNotification as comment } from '../../test/fixtures';
import { NotificationsMenu } from './NotificationsMenu';

function Where() {
  const location = useLocation();
  return <p data-testid="where">{location.pathname}</p>;
}

/** The menu over Bob's and Alice's unread comments on m1 and a read one of Cid's, with fetch stubbed. */
function renderMenu() {
  const client = createQueryClient();
  client.setQueryData(keys.notifications, [
    comment('n1', 'Bob'),
    comment('n2', 'Alice'),
    comment('n3', 'Cid', { read: true }),
  ]);
  const fetch = vi.fn(async () => new Response(null, { status: 204 }));
  vi.stubGlobal('fetch', fetch);
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <NotificationsMenu />
        <Routes>
          <Route path="*" element={<Where />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  /** The method and path of every call made. */
  const calls = () =>
    fetch.mock.calls.map((args) => {
      const [url, init] = args as unknown as [string, RequestInit];
      return `${init.method} ${url}`;
    });
  return { client, calls };
}

beforeAll(async () => {
  await initI18n('en_US');
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('NotificationsMenu', () => {
  it('shows three comments on one message as one entry, counted once in the badge', async () => {
    renderMenu();
    expect(screen.getByTestId('unread-badge').textContent).toBe('1');
    fireEvent.click(screen.getByRole('button', { name: 'Notifications, 1 unread' }));
    // The panel is a lazily loaded chunk.
    const items = await screen.findAllByRole('listitem');
    expect(items).toHaveLength(1);
    expect(items[0]?.textContent).toContain('Bob and 2 others commented on “Beach day” in Family');
  });

  it('opening the entry marks every unread one of it read and opens the first new comment', async () => {
    const { calls } = renderMenu();
    fireEvent.click(screen.getByRole('button', { name: /Notifications/ }));
    fireEvent.click(await screen.findByRole('button', { name: /Bob and 2 others/ }));
    await waitFor(() => expect(calls()).toHaveLength(2));
    expect(calls().sort()).toEqual(['PUT /api/notifications/n1', 'PUT /api/notifications/n2']);
    expect(screen.getByTestId('where').textContent).toBe('/messages/m1/c-n2');
    expect(screen.queryByTestId('unread-badge')).toBeNull();
  });

  it('removing the entry deletes every notification of it', async () => {
    const { client, calls } = renderMenu();
    fireEvent.click(screen.getByRole('button', { name: /Notifications/ }));
    fireEvent.click(await screen.findByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(calls()).toHaveLength(3));
    expect(calls().sort()).toEqual([
      'DELETE /api/notifications/n1',
      'DELETE /api/notifications/n2',
      'DELETE /api/notifications/n3',
    ]);
    expect(client.getQueryData(keys.notifications)).toEqual([]);
  });
});
