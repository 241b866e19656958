import { LinkPreview } from '@kith/common';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { requireUser } from '../../http/auth.js';
import { describeRoute } from '../../http/route-schema.js';
import { getLinkPreview } from './service.js';

/** GET /api/links/by_url (contract §7.5): the preview of a web page, fetched under the fetch rules. */
export function linkRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: { url?: unknown } }>(
    '/links/by_url',
    {
      schema: {
        ...describeRoute({
          summary: 'Preview of a web page: title, description, embed code (cached 7 days, 1 hour after a failure)',
          tag: 'links',
          auth: 'key',
          response: { 200: LinkPreview },
          errors: [400, 429],
        }),
        // Documented only: the service checks it (docs/adr/0001-request-validation.md).
        querystring: Type.Object({
          url: Type.String({ description: 'the page URL, percent-encoded once; http(s), at most 2048 characters' }),
        }),
      },
    },
    (request) => getLinkPreview(ctx, requireUser(request), request.query.url),
  );
}
