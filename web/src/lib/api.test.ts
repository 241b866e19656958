import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, call, pathOf } from './api';
import { offerEarlyAnswers } from './earlyAnswers';
import { clearSession, getApiKey, setApiKey } from './session';
import { storage } from './storage';

function answer(status: number, body?: unknown) {
  return vi.fn(async () =>
    body === undefined
      ? new Response(null, { status })
      : new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }),
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
  clearSession();
});

describe('api', () => {
  it('sends the key as X-AUTH-TOKEN and JSON bodies', async () => {
    setApiKey('key-1');
    const fetch = answer(201, { id: 'm1' });
    vi.stubGlobal('fetch', fetch);
    expect(await call('POST /api/messages', { body: { group: 'g' } })).toEqual({ id: 'm1' });
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/messages');
    expect((init.headers as Record<string, string>)['X-AUTH-TOKEN']).toBe('key-1');
    expect(init.body).toBe('{"group":"g"}');
  });

  it('sends no key for a visitor', async () => {
    const fetch = answer(200, {});
    vi.stubGlobal('fetch', fetch);
    await call('GET /api/info');
    const [, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(init.headers).not.toHaveProperty('X-AUTH-TOKEN');
  });

  it('turns an error answer into an ApiError with its stable code', async () => {
    vi.stubGlobal('fetch', answer(400, { code: 'empty_message', message: 'The message is empty.', field: 'data' }));
    const error = await call('POST /api/messages', { body: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'empty_message', field: 'data' });
  });

  it('checks the status, not the body: a 500 with JSON is still an error', async () => {
    vi.stubGlobal('fetch', answer(500, { id: 'looks-like-success' }));
    await expect(call('GET /api/me')).rejects.toMatchObject({ status: 500, code: 'http_500' });
  });

  it('answers undefined for 204', async () => {
    vi.stubGlobal('fetch', answer(204));
    expect(await call('DELETE /api/messages/{id}', { params: { id: 'x' } })).toBeUndefined();
  });

  it('signs out when the key stopped working, and clears local storage', async () => {
    setApiKey('stale');
    storage.set('draft', 'hello');
    vi.stubGlobal('fetch', answer(401, { code: 'invalid_api_key', message: 'Invalid API key' }));
    await expect(call('GET /api/me')).rejects.toMatchObject({ code: 'invalid_api_key' });
    expect(getApiKey()).toBeNull();
    expect(storage.get('draft')).toBeNull();
  });

  it('reports a network failure as status 0', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    await expect(call('GET /api/me')).rejects.toMatchObject({ status: 0, code: 'network_error' });
  });
});

describe('call', () => {
  it('fills the path parameters, encoded, and adds the query string without absent values', () => {
    expect(pathOf('GET /api/public/{token}', { token: 'a b/c' })).toBe('/api/public/a%20b%2Fc');
    expect(pathOf('GET /api/groups/{id}/feed', { id: 'g1' }, { limit: 30, cursor: undefined })).toBe(
      '/api/groups/g1/feed?limit=30',
    );
    expect(pathOf('GET /api/links/by_url', undefined, { url: 'https://example.org/?a=1&b=2' })).toBe(
      '/api/links/by_url?url=https%3A%2F%2Fexample.org%2F%3Fa%3D1%26b%3D2',
    );
  });

  it('sends {} on a write whose endpoint reads no body, and nothing on reads and deletes', async () => {
    const fetch = answer(200, { id: 'g', entityType: 'group', name: 'G' });
    vi.stubGlobal('fetch', fetch);
    await call('POST /api/groups/{id}/leave', { params: { id: 'g' } });
    await call('GET /api/groups/{id}', { params: { id: 'g' } });
    const bodies = fetch.mock.calls.map((args) => (args as unknown as [string, RequestInit])[1].body);
    expect(bodies).toEqual(['{}', undefined]);
    const methods = fetch.mock.calls.map((args) => (args as unknown as [string, RequestInit])[1].method);
    expect(methods).toEqual(['POST', 'GET']);
  });
});

describe('call with an early answer on offer (lib/earlyAnswers.ts)', () => {
  it('takes it only for a GET of the same URL, once', async () => {
    const fetch = answer(200, { from: 'fetch' });
    vi.stubGlobal('fetch', fetch);
    const early = () => Promise.resolve(new Response(JSON.stringify({ from: 'early' }), { status: 200 }));
    const answers = new Map([
      ['/api/me', early()],
      ['/api/groups/g', early()],
    ]);
    let reads: Promise<unknown>[] = [];
    offerEarlyAnswers(answers, () => {
      reads = [
        call('GET /api/me'),
        call('GET /api/me'),
        call('POST /api/groups/{id}/leave', { params: { id: 'g' } }),
        call('GET /api/groups/{id}', { params: { id: 'other' } }),
      ];
    });
    expect(await Promise.all(reads)).toEqual([
      { from: 'early' },
      { from: 'fetch' },
      { from: 'fetch' },
      { from: 'fetch' },
    ]);
    // What no read took is dropped once the reads have started.
    expect(answers.size).toBe(0);
    expect(await call('GET /api/groups/{id}', { params: { id: 'g' } })).toEqual({ from: 'fetch' });
  });

  it('ends as a cancelled fetch would when the read is cancelled while the answer is on its way', async () => {
    vi.stubGlobal('fetch', answer(200, {}));
    let arrive: (response: Response) => void = () => undefined;
    const pending = new Promise<Response | null>((resolve) => (arrive = resolve));
    const controller = new AbortController();
    let read: Promise<unknown> = Promise.resolve();
    offerEarlyAnswers(new Map([['/api/me', pending]]), () => {
      read = call('GET /api/me', { signal: controller.signal });
    });
    controller.abort();
    arrive(new Response('{}', { status: 200 }));
    await expect(read).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('session', () => {
  it('keeps the key in wrapped local storage', () => {
    setApiKey('k');
    const entry = storage.getEntry<string>('apiKey');
    expect(entry?.data).toBe('k');
    expect(typeof entry?.createdAt).toBe('number');
    expect(entry?.metadata).toEqual({});
  });
});
