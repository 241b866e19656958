import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearSession, setApiKey } from '../lib/session';
import { createQueryClient, keys, prefetchFirstScreen } from './queries';

const GROUP = '6f1c2a4e-8b7d-4c3a-9e2f-1a2b3c4d5e6f';

/** A fetch that answers each API path with a small JSON body naming it. */
function fakeFetch() {
  return vi.fn(async (input: string) => {
    const path = new URL(input, 'http://kith.test').pathname;
    const body = path.endsWith('/feed') ? { messages: [], totalItems: 0, nextCursor: null } : { path };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
  });
}

afterEach(() => {
  vi.unstubAllGlobals();
  clearSession();
});

describe('prefetchFirstScreen', () => {
  it('starts the user, the feed page and the notifications of a group page, into the screens’ caches', async () => {
    setApiKey('k');
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    const client = createQueryClient();
    expect(prefetchFirstScreen(client, `/groups/${GROUP}`)).toBe(true);
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(3));
    const paths = fetch.mock.calls.map(([input]) => new URL(input, 'http://kith.test').pathname).sort();
    expect(paths).toEqual(['/api/groups/' + GROUP + '/feed', '/api/me', '/api/me/notifications/21'].sort());
    await vi.waitFor(() => expect(client.getQueryData(keys.feed(GROUP))).toBeDefined());
    expect(client.getQueryData(keys.feed(GROUP))).toEqual({
      pages: [{ messages: [], totalItems: 0, nextCursor: null }],
      pageParams: [null],
    });
    expect(client.getQueryData(keys.me)).toEqual({ path: '/api/me' });
  });

  it('starts nothing for other screens', () => {
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    const client = createQueryClient();
    for (const path of ['/', `/groups/${GROUP}/random`, '/messages/x', '/groups/not-an-id']) {
      expect(prefetchFirstScreen(client, path)).toBe(false);
    }
    expect(fetch).not.toHaveBeenCalled();
  });
});
