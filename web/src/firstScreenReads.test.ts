import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient, prefetchFirstScreen } from './api/queries';
import { firstReadUrls, GROUP_PAGE, startFirstScreenReads, storedApiKey } from './firstScreenReads';
import { clearSession, setApiKey } from './lib/session';

const GROUP = '6f1c2a4e-8b7d-4c3a-9e2f-1a2b3c4d5e6f';

function wrapped(data: unknown): string {
  return JSON.stringify({ data, createdAt: Date.now(), metadata: {} });
}

/** A fetch answering every URL with 200 and a body naming it, and a `Kith-Event-Id`. */
function fakeFetch() {
  return vi.fn(
    async (input: string) =>
      new Response(JSON.stringify({ url: input }), { status: 200, headers: { 'Kith-Event-Id': '7' } }),
  );
}

/** Puts the page at `path`, under the base path `base` the server writes into the page. */
function openPage(path: string, base = ''): void {
  document.head.querySelectorAll('meta[name="kith-base-path"]').forEach((meta) => meta.remove());
  const meta = document.createElement('meta');
  meta.name = 'kith-base-path';
  meta.content = base;
  document.head.append(meta);
  window.history.replaceState(null, '', `${base}${path}`);
}

afterEach(() => {
  vi.unstubAllGlobals();
  clearSession();
  localStorage.clear();
  window.kithEarlyReads = undefined;
  openPage('/');
});

describe('the early script of the first reads', () => {
  it('asks for the very URLs the client’s first-screen queries fetch', async () => {
    setApiKey('k');
    window.kithEarlyReads = null;
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    prefetchFirstScreen(createQueryClient(), `/groups/${GROUP}`);
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(3));
    const urls = fetch.mock.calls.map(([input]) => input);
    expect(urls.sort()).toEqual(firstReadUrls('', GROUP).sort());
  });

  it('matches the group pages prefetchFirstScreen starts reads for, and only those', () => {
    expect(GROUP_PAGE.exec(`/groups/${GROUP}`)?.[1]).toBe(GROUP);
    expect(GROUP_PAGE.exec(`/groups/${GROUP}/`)?.[1]).toBe(GROUP);
    for (const path of ['/', `/groups/${GROUP}/random`, '/messages/x', '/groups/not-an-id', '/public/t']) {
      expect(GROUP_PAGE.test(path)).toBe(false);
    }
  });

  it('reads the key as the client’s storage does: only a wrapped string entry', () => {
    expect(storedApiKey()).toBeNull();
    localStorage.setItem('apiKey', wrapped('key-1'));
    expect(storedApiKey()).toBe('key-1');
    for (const raw of [
      '"key-1"',
      'not json',
      JSON.stringify({ data: 'k', metadata: {} }),
      JSON.stringify({ data: 'k', createdAt: 1, metadata: [] }),
      wrapped(42),
    ]) {
      localStorage.setItem('apiKey', raw);
      expect(storedApiKey()).toBeNull();
    }
  });

  it('starts the three reads of a signed-in group page, with the key and nothing cached', async () => {
    localStorage.setItem('apiKey', wrapped('key-1'));
    openPage(`/groups/${GROUP}`);
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    const reads = startFirstScreenReads();
    expect(reads).toMatchObject({ path: `/groups/${GROUP}`, key: 'key-1', arrived: false });
    expect(Object.keys(reads?.answers ?? {})).toEqual(firstReadUrls('', GROUP));
    expect(fetch).toHaveBeenCalledTimes(3);
    for (const [, init] of fetch.mock.calls as unknown as [string, RequestInit][]) {
      expect(init).toMatchObject({ method: 'GET', headers: { 'X-AUTH-TOKEN': 'key-1' }, cache: 'no-store' });
    }
    // The answer keeps the status, the headers and the body of the server's.
    const me = await reads?.answers['/api/me'];
    expect(me?.status).toBe(200);
    expect(me?.headers.get('Kith-Event-Id')).toBe('7');
    expect(await me?.json()).toEqual({ url: '/api/me' });
    await vi.waitFor(() => expect(reads?.arrived).toBe(true));
  });

  it('under a sub-path, reads the route after the base path and asks under it', () => {
    localStorage.setItem('apiKey', wrapped('key-1'));
    openPage(`/groups/${GROUP}`, '/family');
    vi.stubGlobal('fetch', fakeFetch());
    const reads = startFirstScreenReads();
    expect(reads?.path).toBe(`/groups/${GROUP}`);
    expect(Object.keys(reads?.answers ?? {})).toEqual(firstReadUrls('/family', GROUP));
    expect(firstReadUrls('/family', GROUP).every((url) => url.startsWith('/family/api/'))).toBe(true);
  });

  it('starts nothing for a visitor or on another page', () => {
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    openPage(`/groups/${GROUP}`);
    expect(startFirstScreenReads()).toBeNull();
    localStorage.setItem('apiKey', wrapped('key-1'));
    for (const path of ['/', `/messages/${GROUP}`, `/groups/${GROUP}/settings`, '/login']) {
      openPage(path);
      expect(startFirstScreenReads()).toBeNull();
    }
    expect(fetch).not.toHaveBeenCalled();
  });

  it('counts the answers as arrived only once all are in and none is a server error', async () => {
    localStorage.setItem('apiKey', wrapped('key-1'));
    openPage(`/groups/${GROUP}`);
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: string) => new Response('{}', { status: input.includes('/feed') ? 503 : 200 })),
    );
    const reads = startFirstScreenReads();
    const answers = await Promise.all(Object.values(reads?.answers ?? {}));
    expect(answers.map((answer) => answer?.status)).toEqual([200, 503, 200]);
    // The app would wait for the retries of the 503 before its first render: it must not.
    await new Promise((resolve) => setTimeout(resolve));
    expect(reads?.arrived).toBe(false);
  });

  it('counts a refusal as arrived: it is final, and the app signs out before its first render', async () => {
    localStorage.setItem('apiKey', wrapped('stale'));
    openPage(`/groups/${GROUP}`);
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('{"code":"invalid_api_key"}', { status: 401 })),
    );
    const reads = startFirstScreenReads();
    await vi.waitFor(() => expect(reads?.arrived).toBe(true));
  });

  it('leaves a failed request as null, for the app to send again', async () => {
    localStorage.setItem('apiKey', wrapped('key-1'));
    openPage(`/groups/${GROUP}`);
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    );
    const reads = startFirstScreenReads();
    expect(await reads?.answers['/api/me']).toBeNull();
  });

  it('when loaded, starts the reads only if the app has not started yet', async () => {
    localStorage.setItem('apiKey', wrapped('key-1'));
    openPage(`/groups/${GROUP}`);
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    window.kithEarlyReads = null;
    vi.resetModules();
    await import('./firstScreenReads');
    expect(fetch).not.toHaveBeenCalled();
    expect(window.kithEarlyReads).toBeNull();

    window.kithEarlyReads = undefined;
    vi.resetModules();
    await import('./firstScreenReads');
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(window.kithEarlyReads).toMatchObject({ path: `/groups/${GROUP}`, key: 'key-1' });
  });
});
