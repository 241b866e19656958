import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../lib/errors.js';

/** Turns any thrown error into the contract's envelope (§1.5). Only the unexpected ones become 500. */
export function toApiError(error: FastifyError | Error): ApiError {
  if (error instanceof ApiError) return error;
  const code = (error as FastifyError).code;
  const status = (error as FastifyError).statusCode;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) {
    return new ApiError(413, 'payload_too_large', 'The request body is larger than 1 MiB');
  }
  if ((error as FastifyError).validation !== undefined) {
    return new ApiError(400, 'invalid_field', 'A field of the request is not valid');
  }
  if (code?.startsWith('FST_ERR_CTP_') === true) {
    return new ApiError(400, 'invalid_json', 'The request body could not be read');
  }
  if (status === 404 || status === 403) return new ApiError(404, 'not_found', 'Not found');
  if (status !== undefined && status >= 400 && status < 500) {
    return new ApiError(400, 'invalid_field', 'The request is not valid');
  }
  return new ApiError(500, 'internal_error', 'An unexpected error happened. It was logged with the request id');
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    return reply.code(apiError.status).headers(apiError.headers).send(apiError.toBody());
  });
}
