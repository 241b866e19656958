import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { unauthenticated } from '../../http/caller.js';
import { route } from '../../http/route.js';
import { grantedMessages, isUrlGranted } from '../grants/public-grants.js';
import { hasPublicCookie } from '../../http/cookies.js';
import { getLinkPreview } from './service.js';

/** GET /api/links/by_url (docs/api §7.5): the preview of a web page, fetched under the fetch rules. */
export function linkRoutes(app: FastifyInstance, ctx: AppContext): void {
  route(app, 'GET /api/links/by_url', async (request, _reply, user) => {
    if (user !== null) return getLinkPreview(ctx, user.id, request.query.url);
    // Without a key: a public-link grant for a message whose text holds this URL (§1.9, §6.7).
    if (request.authProblem === 'missing' && hasPublicCookie(request) && typeof request.query.url === 'string') {
      const url = request.query.url.trim();
      const granted = (await grantedMessages(ctx, request)).find((m) => isUrlGranted([m], url));
      if (granted !== undefined) return getLinkPreview(ctx, `public:${granted.id}`, url);
    }
    throw unauthenticated(request);
  });
}
