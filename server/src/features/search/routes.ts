import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { route } from '../../http/route.js';
import { Body } from '../../lib/body.js';
import { readSearchRequest, searchMessages } from './service.js';
import { searchRunner } from './threads.js';

/** Message search (docs/api §6.8, §10.7); a search reads only, so it is no activity of the caller. */
export function searchRoutes(app: FastifyInstance, ctx: AppContext): void {
  const runner = searchRunner(ctx);
  app.addHook('onClose', () => runner.stop());
  route(app, 'POST /api/messages/search', async (request, reply, user) => {
    const json = await searchMessages(ctx, runner, user, readSearchRequest(Body.of(request.body)));
    // Already JSON (threads.ts): Fastify sends bytes as they are.
    return reply.type('application/json; charset=utf-8').send(json);
  });
}
