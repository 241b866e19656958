import type { ApiErrorBody, ErrorCode } from '@kith/common';

/** An error the API answers with its envelope (docs/api §1.5). Thrown anywhere, rendered in one place. */
export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: ErrorCode,
    message: string,
    public readonly field?: string,
    /** Extra response headers, e.g. `Retry-After` or `Allow`. */
    public readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): ApiErrorBody {
    const body: ApiErrorBody = { code: this.code, message: this.message, error: this.message };
    if (this.field !== undefined) body.field = this.field;
    return body;
  }
}

// Short constructors for the errors most routes share. Texts avoid ':' (docs/api §1.5).
export const notFound = (): ApiError => new ApiError(404, 'not_found', 'Not found');
export const forbidden = (message = 'You are not allowed to do this'): ApiError =>
  new ApiError(403, 'forbidden', message);
export const featureDisabled = (message = 'This feature is turned off on this instance'): ApiError =>
  new ApiError(403, 'feature_disabled', message);
export const missingField = (field: string, message = `The field ${field} is required`): ApiError =>
  new ApiError(400, 'missing_field', message, field);
export const invalidField = (field: string, message = `The field ${field} is not valid`): ApiError =>
  new ApiError(400, 'invalid_field', message, field);
export const tooManyRequests = (
  retryAfterSeconds: number,
  message = 'Too many attempts. Please wait a few minutes.',
): ApiError =>
  new ApiError(429, 'too_many_requests', message, undefined, {
    'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });
