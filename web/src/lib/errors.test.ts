import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, call } from './api';
import { errorText } from './errors';
import { type Texts, translator } from './translate';

const en: Texts = {
  errors: {
    generic: 'An error occurred',
    network_error: 'The server could not be reached.',
    invalid_credentials: 'Invalid login and/or password',
  },
};
const t = translator('en_US', { en_US: en });

/** The error `call` throws for a login answered with `response`. */
async function loginFailure(response: Response): Promise<unknown> {
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => response),
  );
  return call('POST /api/login', { body: { login: 'a@example.com', password: 'x' } }).then(
    () => null,
    (error: unknown) => error,
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('errorText', () => {
  it('falls back to the generic error when the server gives no message (product spec §8)', async () => {
    // A proxy's HTML error page: the status text "Internal Server Error" is not shown.
    const error = await loginFailure(
      new Response('<h1>oops</h1>', {
        status: 500,
        statusText: 'Internal Server Error',
        headers: { 'Content-Type': 'text/html' },
      }),
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(errorText(t, error)).toBe('An error occurred');
    expect(errorText(t, await loginFailure(new Response(null, { status: 502, statusText: 'Bad Gateway' })))).toBe(
      'An error occurred',
    );
    expect(errorText(t, new ApiError(500, 'internal_error', '  '))).toBe('An error occurred');
  });

  it('shows our text for a known code, else the message of the server', async () => {
    const wrong = await loginFailure(
      Response.json({ code: 'invalid_credentials', message: 'Invalid login/password' }, { status: 401 }),
    );
    expect(errorText(t, wrong)).toBe('Invalid login and/or password');
    expect(errorText(t, new ApiError(418, 'teapot', 'The server is a teapot.'))).toBe('The server is a teapot.');
  });

  it('names a network failure, and anything else generically', () => {
    expect(errorText(t, new ApiError(0, 'network_error', 'Failed to fetch'))).toBe('The server could not be reached.');
    expect(errorText(t, new Error('boom'))).toBe('An error occurred');
  });
});
