import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { route } from '../../http/route.js';
import { Body } from '../../lib/body.js';
import { addPushSubscription, listPushSubscriptions, removePushSubscription, reportPresence } from './service.js';

/** Web Push (issue 21, docs/api §11.9): the caller's devices and their focus reports. */
export function pushRoutes(app: FastifyInstance, ctx: AppContext): void {
  route(app, 'GET /api/me/push-subscriptions', (_request, _reply, user) => listPushSubscriptions(ctx, user));
  route(app, 'POST /api/me/push-subscriptions', async (request, reply, user) => {
    const { status, subscription } = await addPushSubscription(ctx, user, Body.of(request.body));
    return reply.code(status).send(subscription);
  });
  route(app, 'DELETE /api/me/push-subscriptions/{id}', async (request, reply, user) => {
    await removePushSubscription(ctx, user, request.params.id);
    return reply.code(204).send();
  });
  route(app, 'PUT /api/me/presence', async (request, reply, user) => {
    await reportPresence(ctx, user, Body.of(request.body));
    return reply.code(204).send();
  });
}
