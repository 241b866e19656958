import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { denyFraming } from './web.js';
import { MEDIA_COOKIE, PUBLIC_COOKIE } from './cookies.js';

/** The API version this server implements (`/api/info` and the OpenAPI document). */
export const API_VERSION = '1.0.0';

/**
 * The OpenAPI 3.1 document is generated from the routes' schemas (docs/api §11.5). Registered before
 * the routes, so it sees every one of them.
 */
export async function registerOpenApiGenerator(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Kith API',
        version: API_VERSION,
        description:
          'The HTTP API of Kith, wire-compatible with the Zusam 0.5.6 web client. Every error answers the envelope {code, message, error, field?}.',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-AUTH-TOKEN' },
          // What `grant` routes also accept instead of a key (docs/api §1.9).
          mediaCookie: { type: 'apiKey', in: 'cookie', name: MEDIA_COOKIE },
          publicGrant: { type: 'apiKey', in: 'cookie', name: PUBLIC_COOKIE },
        },
      },
    },
  });
}

/**
 * `GET /api/openapi.json` and the `/api/docs` page, whose assets all come from Kith itself. Both
 * answer 404 `route_not_found` when the operator turns them off (`API_DOCS=false`).
 */
export async function registerApiDocs(app: FastifyInstance, apiPrefix: string): Promise<void> {
  app.get(`${apiPrefix}/openapi.json`, { schema: { hide: true } }, async (_request, reply) => {
    void reply.header('Cache-Control', 'public, max-age=3600');
    return app.swagger();
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: `${apiPrefix}/docs`,
    // Its own scripts only, with a CSP that says so; like every page of ours, it may not be framed
    // (its onSend hook runs after app.ts's, so the rule is applied here too).
    staticCSP: true,
    transformStaticCSP: denyFraming,
    uiConfig: { tryItOutEnabled: true, persistAuthorization: false },
  });
}
