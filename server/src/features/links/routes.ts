import { LinkPreview } from '@kith/common';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { requireUser } from '../../http/auth.js';
import { describeRoute } from '../../http/route-schema.js';
import { grantedMessages, hasPublicCookie, isUrlGranted } from '../messages/public-grants.js';
import { getLinkPreview } from './service.js';

/** GET /api/links/by_url (contract §7.5): the preview of a web page, fetched under the fetch rules. */
export function linkRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: { url?: unknown } }>(
    '/links/by_url',
    {
      schema: {
        ...describeRoute({
          summary:
            'Preview of a web page: title, description, embed code (cached 7 days, 1 hour after a failure); key, or a kith_public grant',
          tag: 'links',
          auth: 'key',
          response: { 200: LinkPreview },
          errors: [400, 401, 429],
        }),
        // Documented only: the service checks it (docs/adr/0001-request-validation.md).
        querystring: Type.Object({
          url: Type.String({ description: 'the page URL, percent-encoded once; http(s), at most 2048 characters' }),
        }),
      },
    },
    async (request) => {
      if (request.user !== null) return getLinkPreview(ctx, request.user.id, request.query.url);
      // Without a key: a public-link grant for a message whose text holds this URL (§1.9, §6.7).
      if (request.authProblem === 'missing' && hasPublicCookie(request) && typeof request.query.url === 'string') {
        const url = request.query.url.trim();
        const granted = (await grantedMessages(ctx, request)).find((m) => isUrlGranted([m], url));
        if (granted !== undefined) return getLinkPreview(ctx, `public:${granted.id}`, url);
      }
      return getLinkPreview(ctx, requireUser(request).id, request.query.url);
    },
  );
}
