import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, call } from '../lib/api';
import type { EarlyReads } from '../lib/earlyAnswers';
import { firstStreamOpened, resetEventClock } from '../lib/eventClock';
import { clearSession, getApiKey, setApiKey } from '../lib/session';
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
  resetEventClock();
  window.kithEarlyReads = undefined;
});

const ME = '/api/me';
const FEED = `/api/groups/${GROUP}/feed?limit=30`;
const NOTIFICATIONS = '/api/me/notifications/21?include=reactions%2Cmentions';

/** An answer as the early script leaves it, with the server's `Kith-Event-Id`. */
function early(body: unknown, status = 200, eventId = '3'): Promise<Response | null> {
  return Promise.resolve(
    new Response(JSON.stringify(body), {
      status,
      headers: { 'Content-Type': 'application/json', 'Kith-Event-Id': eventId },
    }),
  );
}

/** What the early script leaves for a group page read with key `k`. */
function earlyReads(overrides: Partial<EarlyReads> = {}): EarlyReads {
  return {
    path: `/groups/${GROUP}`,
    key: 'k',
    answers: {
      [ME]: early({ id: 'u1', early: true }),
      [FEED]: early({ messages: [], totalItems: 0, nextCursor: 'early' }),
      [NOTIFICATIONS]: early([]),
    },
    arrived: true,
    ...overrides,
  };
}

describe('prefetchFirstScreen', () => {
  it('starts the user, the feed page and the notifications of a group page, into the screens’ caches', async () => {
    setApiKey('k');
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    const client = createQueryClient();
    // Started, with no answers in hand (there is no early script here).
    expect(prefetchFirstScreen(client, `/groups/${GROUP}`)?.inHand()).toBe(false);
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
      expect(prefetchFirstScreen(client, path)).toBeNull();
    }
    expect(fetch).not.toHaveBeenCalled();
  });

  it('starts nothing for a visitor', () => {
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    expect(prefetchFirstScreen(createQueryClient(), `/groups/${GROUP}`)).toBeNull();
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('prefetchFirstScreen with the early script’s answers', () => {
  it('takes them instead of asking again, and notes their Kith-Event-Id', async () => {
    setApiKey('k');
    window.kithEarlyReads = earlyReads();
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    const client = createQueryClient();
    // All three have arrived: in hand, and in the caches once `settled` settles.
    const reads = prefetchFirstScreen(client, `/groups/${GROUP}`);
    expect(reads?.inHand()).toBe(true);
    await reads?.settled;
    expect(client.getQueryData(keys.notifications)).toEqual([]);
    expect(client.getQueryData(keys.me)).toEqual({ id: 'u1', early: true });
    expect(client.getQueryData(keys.feed(GROUP))).toEqual({
      pages: [{ messages: [], totalItems: 0, nextCursor: 'early' }],
      pageParams: [null],
    });
    expect(fetch).not.toHaveBeenCalled();
    // Read at event 3: a first stream starting after event 5 may have missed some, so the screens read again.
    const gap = vi.fn();
    firstStreamOpened('5', gap);
    expect(gap).toHaveBeenCalledOnce();
  });

  it('takes answers still on their way too, without making the first render wait for them', async () => {
    setApiKey('k');
    let arrive: (response: Response) => void = () => undefined;
    const me = new Promise<Response | null>((resolve) => (arrive = resolve));
    const early = earlyReads({ arrived: false });
    early.answers[ME] = me;
    window.kithEarlyReads = early;
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    const client = createQueryClient();
    const reads = prefetchFirstScreen(client, `/groups/${GROUP}`);
    expect(reads?.inHand()).toBe(false);
    arrive(new Response(JSON.stringify({ id: 'u1', late: true }), { status: 200 }));
    // The early script notes the arrival; the app asks whenever it is about to render.
    early.arrived = true;
    expect(reads?.inHand()).toBe(true);
    await reads?.settled;
    expect(client.getQueryData(keys.me)).toEqual({ id: 'u1', late: true });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('uses each answer once: a later read of the same URL asks the server', async () => {
    setApiKey('k');
    window.kithEarlyReads = earlyReads();
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    const client = createQueryClient();
    prefetchFirstScreen(client, `/groups/${GROUP}`);
    await vi.waitFor(() => expect(client.getQueryData(keys.me)).toEqual({ id: 'u1', early: true }));
    expect(await call('GET /api/me')).toEqual({ path: '/api/me' });
    expect(fetch).toHaveBeenCalledOnce();
    // The hand-off is closed: nothing is taken on a second first screen either.
    expect(window.kithEarlyReads).toBeNull();
    prefetchFirstScreen(createQueryClient(), `/groups/${GROUP}`);
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(4));
  });

  it('asks the server itself when the answers are for another page or another key', async () => {
    setApiKey('k');
    for (const other of [{ path: `/groups/${GROUP.replace('6f', '00')}` }, { key: 'old-key' }]) {
      window.kithEarlyReads = earlyReads(other);
      const fetch = fakeFetch();
      vi.stubGlobal('fetch', fetch);
      const client = createQueryClient();
      prefetchFirstScreen(client, `/groups/${GROUP}`);
      await vi.waitFor(() => expect(client.getQueryData(keys.me)).toEqual({ path: '/api/me' }));
      expect(fetch).toHaveBeenCalledTimes(3);
    }
  });

  it('drops them on another first screen, so no later read takes them', async () => {
    setApiKey('k');
    window.kithEarlyReads = earlyReads();
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    expect(prefetchFirstScreen(createQueryClient(), '/messages/m1')).toBeNull();
    expect(window.kithEarlyReads).toBeNull();
    expect(await call('GET /api/me')).toEqual({ path: '/api/me' });
    expect(fetch).toHaveBeenCalledOnce();
  });

  it('sends again a request that failed early, and takes the others', async () => {
    setApiKey('k');
    window.kithEarlyReads = earlyReads();
    window.kithEarlyReads.answers[ME] = Promise.resolve(null);
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    const client = createQueryClient();
    prefetchFirstScreen(client, `/groups/${GROUP}`);
    await vi.waitFor(() => expect(client.getQueryData(keys.me)).toEqual({ path: '/api/me' }));
    await vi.waitFor(() => expect(client.getQueryData(keys.notifications)).toEqual([]));
    expect(fetch.mock.calls.map(([input]) => input)).toEqual([ME]);
  });

  it('handles an error answer as its own call would: a stale key signs out', async () => {
    setApiKey('k');
    window.kithEarlyReads = earlyReads();
    window.kithEarlyReads.answers[ME] = early({ code: 'invalid_api_key', message: 'Invalid API key' }, 401);
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    const client = createQueryClient();
    prefetchFirstScreen(client, `/groups/${GROUP}`);
    await vi.waitFor(() => expect(client.getQueryState(keys.me)?.status).toBe('error'));
    const error = client.getQueryState(keys.me)?.error;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(getApiKey()).toBeNull();
    expect(fetch).not.toHaveBeenCalled();
  });
});
