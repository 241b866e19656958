import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { route } from '../../http/route.js';
import { Body } from '../../lib/body.js';
import { addReaction, listReactions, removeReaction } from './service.js';

/** Reactions to messages (issue 20), in Zusam 0.6.1's paths; each answers the message's summaries. */
export function reactionRoutes(app: FastifyInstance, ctx: AppContext): void {
  route(app, 'POST /api/messages/{id}/reactions', (request, _reply, user) =>
    addReaction(ctx, user, request.params.id, Body.of(request.body)),
  );
  route(app, 'GET /api/messages/{id}/reactions', (request, _reply, user) =>
    listReactions(ctx, user, request.params.id),
  );
  route(app, 'DELETE /api/messages/{id}/reactions/{reactionId}', (request, _reply, user) =>
    removeReaction(ctx, user, request.params.id, request.params.reactionId),
  );
}
