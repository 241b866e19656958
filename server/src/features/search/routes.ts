import { SearchAnswer, SearchBody } from '@kith/common';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { requireUser } from '../../http/auth.js';
import { describeRoute } from '../../http/route-schema.js';
import { Body } from '../../lib/body.js';
import { readSearchRequest, searchMessages } from './service.js';

/** Message search (contract §6.8, §10.7). */
export function searchRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post(
    '/messages/search',
    {
      // A search reads only: it is no activity of the caller.
      config: { readOnly: true },
      schema: describeRoute({
        summary: 'Search the messages of a group: every term must match; ranked, with snippets',
        tag: 'messages',
        auth: 'key',
        body: SearchBody,
        response: { 200: SearchAnswer },
        errors: [404],
      }),
    },
    (request) => {
      const user = requireUser(request);
      return searchMessages(ctx, user, readSearchRequest(Body.of(request.body)));
    },
  );
}
