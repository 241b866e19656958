import { QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Bookmark } from '@kith/common';
import { createQueryClient, keys } from '../../api/queries';
import { alerts } from '../../lib/alerts';
import { initI18n } from '../../lib/i18n';
import { clearSession, setApiKey } from '../../lib/session';
import { useBookmarkActions } from './useBookmarkActions';

function bookmark(id: string, messageId: string): Bookmark {
  return {
    id,
    entityType: 'bookmark',
    createdAt: 0,
    user: { id: 'me', entityType: 'user' },
    message: { id: messageId, entityType: 'message' },
  };
}

/** A fetch whose every answer waits for `release`, with the status and body given. */
function heldFetch(status: number, body: unknown) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const fetch = vi.fn(async () => {
    await held;
    return status === 204
      ? new Response(null, { status })
      : new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  });
  return { fetch, release };
}

function setup(list: Bookmark[]) {
  const client = createQueryClient();
  client.setQueryData(keys.bookmarks, list);
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={client}>{children}</QueryClientProvider>
  );
  const { result } = renderHook(() => useBookmarkActions(), { wrapper });
  return { client, actions: () => result.current };
}

const ids = (list: Bookmark[] | undefined) => list?.map((b) => b.id);
const alertTexts = () => alerts.getSnapshot().map((a) => `${a.style}: ${a.text}`);

beforeAll(async () => {
  await initI18n('en_US');
});

afterEach(() => {
  vi.unstubAllGlobals();
  clearSession();
  for (const alert of alerts.getSnapshot()) alerts.dismiss(alert.id);
});

describe('removing a bookmark', () => {
  it('takes it out of the list before the server answers, and says so once it did', async () => {
    setApiKey('k');
    const { fetch, release } = heldFetch(204, null);
    vi.stubGlobal('fetch', fetch);
    const { client, actions } = setup([bookmark('b1', 'm1'), bookmark('b2', 'm2'), bookmark('b3', 'm3')]);
    let done!: Promise<void>;
    act(() => {
      done = actions().remove(bookmark('b2', 'm2'));
    });
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    expect(ids(client.getQueryData(keys.bookmarks))).toEqual(['b1', 'b3']);
    release();
    await act(() => done);
    expect(ids(client.getQueryData(keys.bookmarks))).toEqual(['b1', 'b3']);
    expect(alertTexts()).toEqual(['success: Message bookmark removed.']);
  });

  it('puts it back in its place, with an error alert, when the server refuses', async () => {
    setApiKey('k');
    const { fetch, release } = heldFetch(500, { code: 'internal_error', message: 'boom' });
    vi.stubGlobal('fetch', fetch);
    const { client, actions } = setup([bookmark('b1', 'm1'), bookmark('b2', 'm2'), bookmark('b3', 'm3')]);
    let done!: Promise<void>;
    act(() => {
      done = actions().remove(bookmark('b2', 'm2'));
    });
    await vi.waitFor(() => expect(fetch).toHaveBeenCalled());
    expect(ids(client.getQueryData(keys.bookmarks))).toEqual(['b1', 'b3']);
    release();
    await act(() => done);
    expect(ids(client.getQueryData(keys.bookmarks))).toEqual(['b1', 'b2', 'b3']);
    expect(alertTexts()).toEqual(['danger: An error occurred']);
  });
});

describe('adding a bookmark', () => {
  it('waits for the server, then puts the bookmark it answered first in the list', async () => {
    setApiKey('k');
    const { fetch, release } = heldFetch(201, bookmark('b9', 'm9'));
    vi.stubGlobal('fetch', fetch);
    const { client, actions } = setup([bookmark('b1', 'm1')]);
    let done!: Promise<void>;
    act(() => {
      done = actions().add('m9');
    });
    await vi.waitFor(() => expect(fetch).toHaveBeenCalled());
    // Nothing changes before the server has made it.
    expect(ids(client.getQueryData(keys.bookmarks))).toEqual(['b1']);
    const [, init] = fetch.mock.calls[0] as unknown as [string, { body: string }];
    expect(JSON.parse(init.body)).toEqual({ message_id: 'm9' });
    release();
    await act(() => done);
    expect(ids(client.getQueryData(keys.bookmarks))?.slice(0, 2)).toEqual(['b9', 'b1']);
    expect(alertTexts()).toEqual(['success: Message bookmarked.']);
  });
});
