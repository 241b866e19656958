import { QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient, keys } from '../../api/queries';
import type { Message, MessageRef } from '@kith/common';
import { me, message, NOW_SECONDS } from '../../test/fixtures';
import { initI18n } from '../../lib/i18n';
import { Comments } from './Comments';

function comment(n: number): Message {
  return message({
    id: `c${n}`,
    createdAt: NOW_SECONDS + n,
    lastActivityDate: NOW_SECONDS + n,
    data: { text: `Comment number ${n}` },
  });
}

function setup(count: number, focusId?: string) {
  const client = createQueryClient();
  client.setQueryData(keys.me, me);
  for (let n = 1; n <= count + 1; n++) client.setQueryData(keys.message(`c${n}`), comment(n));
  const items = (total: number): MessageRef[] =>
    Array.from({ length: total }, (_, i) => ({
      id: `c${i + 1}`,
      entityType: 'message',
    }));
  const view = (total: number) => (
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <Comments items={items(total)} focusId={focusId} />
      </MemoryRouter>
    </QueryClientProvider>
  );
  const result = render(view(count));
  return { rerender: (total: number) => result.rerender(view(total)) };
}

const shown = () =>
  screen.queryAllByText(/^Comment number \d+$/).map((node) => Number(node.textContent?.split(' ')[2]));

beforeAll(async () => {
  await initI18n('en_US');
});

const scrollIntoView = vi.fn();

afterEach(cleanup);

beforeEach(() => {
  // jsdom has no layout, hence no scrollIntoView.
  scrollIntoView.mockClear();
  Element.prototype.scrollIntoView = scrollIntoView;
});

describe('Comments window', () => {
  it('shows the last 5, then 10 more per click on "previous"', () => {
    setup(17);
    expect(shown()).toEqual([13, 14, 15, 16, 17]);
    expect(screen.queryByRole('button', { name: /next/ })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Show 10 previous comments' }));
    expect(shown()).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);
    fireEvent.click(screen.getByRole('button', { name: 'Show 2 previous comments' }));
    expect(shown()).toHaveLength(17);
    expect(screen.queryByRole('button', { name: /previous/ })).toBeNull();
  });

  it('opens around the named comment, highlighted and scrolled into view', () => {
    setup(17, 'c3');
    expect(shown()).toEqual([1, 2, 3, 4, 5]);
    const item = document.getElementById('comment-c3');
    expect(item?.className).toMatch(/highlighted/);
    expect(scrollIntoView).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByRole('button', { name: 'Show the next 10 comments' }));
    expect(shown()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
  });

  it('reveals every comment when a new one arrives', () => {
    const { rerender } = setup(17);
    expect(shown()).toHaveLength(5);
    act(() => rerender(18));
    expect(shown()).toHaveLength(18);
  });

  it("offers edit only on the reader's own comments", () => {
    setup(2);
    // Ben wrote every comment; Ana reads them.
    expect(screen.queryByRole('button', { name: 'Message actions' })).toBeNull();
  });
});
