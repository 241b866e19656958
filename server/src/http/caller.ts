import type { FastifyRequest } from 'fastify';
import type { UserRow } from '../db/rows.js';
import { ApiError } from '../lib/errors.js';

// Who is calling, as features/auth/authenticate.ts finds it from the X-AUTH-TOKEN header of every
// request (docs/api §1.2), and the 401 of a request without a caller.

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, when a valid `X-AUTH-TOKEN` was sent. */
    user: UserRow | null;
    /**
     * Why there is no caller: no header, a header that is not a live key, or the key of an
     * account an administrator disabled.
     */
    authProblem: 'missing' | 'invalid' | 'disabled';
    /**
     * The hash of the request's API key when its route reads the caller itself, with its answer's
     * data (`readsKey` in http/route.ts): `user` is then null until the route has read it.
     */
    keyHash: string | null;
  }
}

/** A disabled account's refusal: 401 for its key, 403 for its password at sign-in. */
export function accountDisabled(status: 401 | 403): ApiError {
  return new ApiError(status, 'account_disabled', 'This account is disabled. Ask the administrator of this instance');
}

/**
 * The 401 of a request without a caller: `invalid_api_key` for a key that is not live, else
 * `auth_required`. Thrown for every route that declares `key` (http/route.ts), and by the access
 * rules of `grant` routes when neither a key nor a grant lets the request in.
 */
export function unauthenticated(request: FastifyRequest): ApiError {
  if (request.authProblem === 'disabled') return accountDisabled(401);
  if (request.authProblem === 'invalid')
    return new ApiError(401, 'invalid_api_key', 'This API key is not valid. Please log in again');
  return new ApiError(401, 'auth_required', 'You need to log in');
}
