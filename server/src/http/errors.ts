import type { Socket } from 'node:net';
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

/**
 * The answer to a request Node's HTTP parser refused before Fastify saw it (Fastify's
 * `clientErrorHandler`): the URL and headers over Node's 16 KiB, bytes that are not HTTP, a client
 * too slow to send its headers. Same envelope and headers as every other error (docs/api §1.5);
 * the connection is then closed, as Node does, since its state is unknown.
 */
export function clientErrorAnswer(error: Error & { code?: string }): string {
  const apiError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError(431, 'headers_too_large', 'The URL or the headers of the request are too large')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError(408, 'request_timeout', 'The request took too long to arrive')
        : new ApiError(400, 'invalid_request', 'The request is not valid HTTP');
  const body = JSON.stringify(apiError.toBody());
  const reason = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[
    apiError.status as 400 | 408 | 431
  ];
  return [
    `HTTP/1.1 ${apiError.status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Fastify's `clientErrorHandler`: answers with `clientErrorAnswer` unless the client is gone. */
export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection, or one already closed, has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // end(), not write() and destroy(): with request bytes still unread, destroying resets the
  // connection and the client may never see the answer. A client that does not close its side
  // is cut off shortly after.
  socket.end(clientErrorAnswer(error));
  setTimeout(() => socket.destroy(), 5000).unref();
}
