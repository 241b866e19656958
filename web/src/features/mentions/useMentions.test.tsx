import { QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Group } from '@kith/common';
import { createQueryClient, keys } from '../../api/queries';
import { initI18n } from '../../lib/i18n';
import { me, message } from '../../test/fixtures';
import { Writer } from '../composer/Writer';

beforeAll(async () => {
  await initI18n('en_US');
});
afterEach(cleanup);

const member = (id: string, name: string) => ({ id, entityType: 'user' as const, name, avatar: null });
const group: Group = {
  id: 'g1',
  entityType: 'group',
  name: 'Family',
  createdAt: 0,
  lastActivityDate: 0,
  users: [member('me', 'Ana'), member('ben', 'Ben Andrews'), member('cleo', 'Cléo'), member('anton', 'Anton')],
};

/** Frames run at once, so the list follows the caret as soon as the text changed. */
const flush = () => act(() => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined))));

function setup(edited?: Parameters<typeof Writer>[0]['message']) {
  const client = createQueryClient();
  client.setQueryData(keys.me, me);
  client.setQueryData(keys.group('g1'), group);
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <Writer groupId="g1" onDone={() => undefined} message={edited} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return screen.getByRole<HTMLTextAreaElement>('combobox', { name: 'Message' });
}

async function type(field: HTMLTextAreaElement, value: string) {
  fireEvent.input(field, { target: { value } });
  field.setSelectionRange(value.length, value.length);
  await flush();
}

describe('mention suggestions in the composer', () => {
  it('opens on @ with the matching members, not oneself, and follows the combobox pattern', async () => {
    const field = setup();
    expect(field.getAttribute('aria-expanded')).toBe('false');
    await type(field, 'Hi @an');
    const list = screen.getByRole('listbox', { name: 'People to mention' });
    expect(field.getAttribute('aria-expanded')).toBe('true');
    expect(field.getAttribute('aria-controls')).toBe(list.id);
    const options = screen.getAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['AAnton', 'BBen Andrews']);
    expect(field.getAttribute('aria-activedescendant')).toBe(options[0]?.id);
    fireEvent.keyDown(field, { key: 'ArrowDown' });
    expect(field.getAttribute('aria-activedescendant')).toBe(screen.getAllByRole('option')[1]?.id);
    fireEvent.keyDown(field, { key: 'ArrowDown' });
    expect(field.getAttribute('aria-activedescendant')).toBe(screen.getAllByRole('option')[0]?.id);
  });

  it('Escape closes the list without closing the composer, until a new @', async () => {
    const field = setup();
    await type(field, '@cl');
    expect(screen.getByRole('listbox')).toBeTruthy();
    fireEvent.keyDown(field, { key: 'Escape' });
    fireEvent.keyUp(field, { key: 'Escape' });
    await flush();
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(field.getAttribute('aria-expanded')).toBe('false');
    await type(field, '@cle');
    expect(screen.queryByRole('listbox')).toBeNull();
    await type(field, '@cle @c');
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['CCléo']);
  });

  it('Enter inserts "@Name " in place of what was typed; a tap does too', async () => {
    const field = setup();
    await type(field, 'Hello @be');
    fireEvent.keyDown(field, { key: 'Enter' });
    await flush();
    expect(field.value).toBe('Hello @Ben Andrews ');
    expect(screen.queryByRole('listbox')).toBeNull();
    await type(field, 'Hello @Ben Andrews and @cl');
    fireEvent.click(screen.getByRole('option', { name: 'Cléo' }));
    await flush();
    expect(field.value).toBe('Hello @Ben Andrews and @Cléo ');
  });

  it('sends the ids of the people picked whose name is still in the text; an edit starts with the stored ones', async () => {
    const fetchSpy = vi
      .spyOn(globalThis, 'fetch')
      .mockImplementation(() =>
        Promise.resolve(
          new Response(JSON.stringify(message()), { status: 200, headers: { 'content-type': 'application/json' } }),
        ),
      );
    // Dan was renamed Daniel since: the text still says "@Dan", which keeps him.
    const field = setup(
      message({
        data: { text: 'Thanks @Dan and @Cléo' },
        mentions: [
          { id: 'dan', name: 'Daniel', written: 'Dan' },
          { id: 'cleo', name: 'Cléo', written: 'Cléo' },
        ],
      }),
    );
    await type(field, 'Thanks @Dan, and @be');
    fireEvent.keyDown(field, { key: 'Tab' });
    await flush();
    expect(field.value).toBe('Thanks @Dan, and @Ben Andrews ');
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Save' }));
      await Promise.resolve();
    });
    const [, init] = fetchSpy.mock.calls.find(([, options]) => options?.method === 'PUT') ?? [];
    expect((JSON.parse(init?.body as string) as { mentions: string[] }).mentions).toEqual(['dan', 'ben']);
    fetchSpy.mockRestore();
  });
});
