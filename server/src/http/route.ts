import {
  endpoints,
  ErrorBody,
  type Endpoint,
  type EndpointAnswer,
  type EndpointAuth,
  type EndpointKey,
  type EndpointParams,
  type Endpoints,
  type HttpMethod,
} from '@kith/common';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
// Brings the OpenAPI fields (summary, tags, security) into FastifySchema.
import type {} from '@fastify/swagger';
import { Type, type Static, type TSchema } from 'typebox';
import type { UserRow } from '../db/rows.js';
import { unauthenticated } from './caller.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route's endpoint declares (enforced by route() below). */
    auth?: EndpointAuth;
    /** A POST that only reads (search): it does not count as the caller's activity (docs/api §1.11). */
    readOnly?: boolean;
    /** The route reads its caller with its answer (`withKey` below), not the authentication hook. */
    readsKey?: boolean;
  }
}

/** The caller a handler receives: always a user on keyed routes, maybe none on the others. */
export type Caller<K extends EndpointKey> = Endpoints[K]['auth'] extends 'key' ? UserRow : UserRow | null;

/**
 * The query string as it arrives: whatever the endpoint documents, each value may be missing, a
 * string, or several strings; services check it (docs/adr/0001-request-validation.md).
 */
type RawQuery<K extends EndpointKey> = Endpoints[K] extends { query: infer Q extends TSchema }
  ? { [N in keyof Static<Q>]?: string | string[] }
  : Record<string, never>;

/** The request a handler of endpoint `K` receives. */
export type RouteRequest<K extends EndpointKey> = FastifyRequest<{
  Params: EndpointParams<K>;
  Querystring: RawQuery<K>;
}>;

type Answer<K extends EndpointKey> = EndpointAnswer<K> | FastifyReply | undefined;

/** A route's handler: the request, the reply, and the caller its declaration guarantees. */
export type RouteHandler<K extends EndpointKey> = (
  request: RouteRequest<K>,
  reply: FastifyReply,
  caller: Caller<K>,
) => Answer<K> | Promise<Answer<K>>;

const OPENAPI_SECURITY: Record<EndpointAuth, FastifySchema['security']> = {
  key: [{ apiKey: [] }],
  grant: [{ apiKey: [] }, { mediaCookie: [] }, { publicGrant: [] }],
  anyone: undefined,
};

/**
 * An endpoint's Fastify schema: it serializes the answers and feeds the OpenAPI document. Error
 * answers all share the envelope; 401 is added for routes that need a caller, 400 for routes with a
 * body, 500 everywhere.
 */
export function describeEndpoint(path: string, endpoint: Endpoint): FastifySchema {
  if (endpoint.hidden === true) return { hide: true };
  const response: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(endpoint.response)) {
    response[status] = schema ?? { type: 'null', description: 'No content' };
  }
  const errors = new Set([...(endpoint.errors ?? []), 500]);
  if (endpoint.auth !== 'anyone') errors.add(401);
  if (endpoint.body !== undefined) errors.add(400);
  for (const status of errors) response[status] = ErrorBody;
  const params = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '');
  const security = OPENAPI_SECURITY[endpoint.auth];
  return {
    summary: endpoint.summary,
    tags: [endpoint.tag],
    ...(security !== undefined ? { security } : {}),
    ...(params.length > 0
      ? { params: Type.Object(Object.fromEntries(params.map((name) => [name, Type.String()]))) }
      : {}),
    ...(endpoint.query !== undefined ? { querystring: endpoint.query } : {}),
    ...(endpoint.body !== undefined ? { body: endpoint.body } : {}),
    response,
  };
}

/** Splits an endpoint key into its method and its path in Fastify's form (`:id` for `{id}`). */
export function endpointRoute(key: EndpointKey): { method: HttpMethod; path: string } {
  const [method, path] = key.split(' ') as [HttpMethod, string];
  return { method, path: path.replace(/\{(\w+)\}/g, ':$1') };
}

/**
 * Registers the handler of one endpoint of the table (`common/src/api/endpoints.ts`), with the
 * endpoint's schema and declared authentication. Paths under `/api` are registered on the API's
 * scope (whose prefix ends in `/api`); others on a scope prefixed by the base path.
 */
export function route<K extends EndpointKey>(
  app: FastifyInstance,
  key: K,
  handler: RouteHandler<K>,
  options: {
    /** `false`: no HEAD at all (a live stream); `'same'`: HEAD runs this handler itself (file bytes). */
    head?: false | 'same';
    /**
     * A keyed route's handler for a request with a key, which reads the key's user itself in one
     * statement with its answer (features/auth/authenticate.ts, `callerOfKey`): the authentication
     * hook then leaves the key unread. The caller it settles is the hook's, 401 included.
     */
    withKey?: (request: RouteRequest<K>, reply: FastifyReply, keyHash: string) => Promise<Answer<K>>;
  } = {},
): void {
  const endpoint: Endpoint = endpoints[key];
  const { method, path } = endpointRoute(key);
  const needsKey = endpoint.auth === 'key';
  const withKey = options.withKey;
  if (withKey !== undefined && !needsKey) throw new Error(`${key} reads no key: it cannot read it with its answer`);
  const underApi = path.startsWith('/api/');
  if (underApi !== app.prefix.endsWith('/api')) {
    throw new Error(`${key} must be registered on ${underApi ? 'the API scope' : 'the base path scope'}`);
  }
  app.route<{ Params: EndpointParams<K>; Querystring: RawQuery<K> }>({
    // A GET also answers HEAD through Fastify's copy of it (which drops the body), unless the
    // route says otherwise.
    method: options.head === 'same' ? [method, 'HEAD'] : method,
    url: underApi ? path.slice('/api'.length) : path,
    ...(options.head !== undefined ? { exposeHeadRoute: false } : {}),
    schema: describeEndpoint(key.slice(method.length + 1), endpoint),
    config: {
      auth: endpoint.auth,
      ...(endpoint.readOnly === true ? { readOnly: true } : {}),
      ...(withKey !== undefined ? { readsKey: true } : {}),
    },
    // What the endpoint declares is enforced here, for every route, after the body was parsed (a
    // malformed body still answers 400 first). A check in the handler costs nothing for the routes
    // that need none, where a hook would run, and read `routeOptions`, on every request.
    handler: needsKey
      ? (request, reply) => {
          if (request.keyHash !== null && withKey !== undefined) return withKey(request, reply, request.keyHash);
          if (request.user === null) throw unauthenticated(request);
          return handler(request, reply, request.user);
        }
      : (request, reply) => handler(request, reply, request.user as Caller<K>),
  });
}
