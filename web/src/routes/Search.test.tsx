import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SearchAnswer, SearchMessage } from '@kith/common';
import { createQueryClient, keys } from '../api/queries';
import { initI18n } from '../lib/i18n';
import { me, NOW_SECONDS } from '../test/fixtures';
import Search from './Search';

// A group larger than one search window (docs/api §6.8, `older`): the screen says only the newest
// messages were searched and asks for the older ones on demand, listing them after the first.

function result(id: string, text: string): SearchMessage {
  return {
    id,
    entityType: 'message',
    data: { title: '', text },
    author: '',
    preview: '',
    parent: '',
    children: 0,
    createdAt: NOW_SECONDS,
    lastActivityDate: NOW_SECONDS,
    score: 1,
    snippet: { text, highlights: [[0, 6]] },
  };
}

/** The server: the newest window holds `recent`, the one below it (`before` 3) `old`. */
function serve(): { bodies: unknown[] } {
  const bodies: unknown[] = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation((_url, init) => {
    const body = JSON.parse(init?.body as string) as { before?: number | null };
    bodies.push(body);
    const answer: SearchAnswer =
      body.before === 3
        ? { messages: [result('old', 'Moulin ancien')], totalItems: 1, searchterms: ['moulin'], older: null }
        : { messages: [result('recent', 'Moulin repeint')], totalItems: 1, searchterms: ['moulin'], older: 3 };
    return Promise.resolve(
      new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } }),
    );
  });
  return { bodies };
}

function show() {
  const client = createQueryClient();
  client.setQueryData(keys.me, { ...me, groups: [{ id: 'g1', entityType: 'group', name: 'Family' }] });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/groups/g1/search?q=moulin']}>
        <Routes>
          <Route path="/groups/:id/search" element={<Search />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

beforeAll(async () => {
  await initI18n('en_US');
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('Search, window by window', () => {
  it('says only the newest messages were searched, and adds the older ones when asked', async () => {
    const server = serve();
    show();
    // The snippet's text is cut by its highlight: results are read whole, item by item.
    const items = () => screen.getAllByRole('listitem').map((item) => item.textContent ?? '');
    await waitFor(() => expect(items().some((t) => t.includes('Moulin repeint'))).toBe(true));
    expect(screen.getByText('Only the most recent messages of this group were searched.')).toBeTruthy();
    expect(screen.getByRole('status').textContent).toBe('1 message');
    fireEvent.click(screen.getByRole('button', { name: 'Search older messages' }));
    await waitFor(() => expect(items().some((t) => t.includes('Moulin ancien'))).toBe(true));
    // The newest window stays first; the count adds the windows up; nothing older is left to ask for.
    const texts = items();
    expect(texts.findIndex((t) => t.includes('Moulin repeint'))).toBeLessThan(
      texts.findIndex((t) => t.includes('Moulin ancien')),
    );
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('2 messages'));
    expect(screen.queryByRole('button', { name: 'Search older messages' })).toBeNull();
    expect(screen.queryByText('Only the most recent messages of this group were searched.')).toBeNull();
    expect(server.bodies).toEqual([
      { group: 'g1', search: 'moulin', hashtags: '', before: null },
      { group: 'g1', search: 'moulin', hashtags: '', before: 3 },
    ]);
  });
});
