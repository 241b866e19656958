import { ErrorBody } from '@kith/common';
import type { FastifySchema } from 'fastify';
// Brings the OpenAPI fields (summary, tags, security) into FastifySchema.
import type {} from '@fastify/swagger';
import { Type, type TSchema } from 'typebox';

/** How a route authenticates (contract §1.2): by key, or open to anyone (a valid key is still used). */
export type RouteAuth = 'key' | 'anyone';

export interface RouteDescription {
  summary: string;
  tag: string;
  auth: RouteAuth;
  /** Path parameters, by name. */
  params?: string[];
  body?: TSchema;
  /** Success answers by status; `null` for an empty answer (204). */
  response: Record<number, TSchema | null>;
  /** Error statuses this route can answer besides the common ones. */
  errors?: number[];
}

/**
 * A route's Fastify schema: it serializes the answers and feeds the OpenAPI document. Error answers
 * all share the envelope; 401 is added for keyed routes, 400 for routes with a body, 500 everywhere.
 */
export function describeRoute(route: RouteDescription): FastifySchema {
  const response: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(route.response)) {
    response[status] = schema ?? { type: 'null', description: 'No content' };
  }
  const errors = new Set([...(route.errors ?? []), 500]);
  if (route.auth === 'key') errors.add(401);
  if (route.body !== undefined) errors.add(400);
  for (const status of errors) response[status] = ErrorBody;
  return {
    summary: route.summary,
    tags: [route.tag],
    ...(route.auth === 'key' ? { security: [{ apiKey: [] }] } : {}),
    ...(route.params !== undefined
      ? { params: Type.Object(Object.fromEntries(route.params.map((name) => [name, Type.String()]))) }
      : {}),
    ...(route.body !== undefined ? { body: route.body } : {}),
    response,
  };
}
