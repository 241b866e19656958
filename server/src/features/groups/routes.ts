import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { route } from '../../http/route.js';
import { Body } from '../../lib/body.js';
import { ApiError } from '../../lib/errors.js';
import { requireId } from '../../lib/ids.js';
import { Throttle } from '../../lib/throttles.js';
import { acceptInvitation, createGroup, getGroup, leaveGroup, renameGroup, resetInviteKey } from './service.js';

/** Groups: create, read, rename, leave, invitation keys (docs/api §5). */
export function groupRoutes(app: FastifyInstance, ctx: AppContext): void {
  route(app, 'POST /api/groups', async (request, reply, user) =>
    reply.code(201).send(await createGroup(ctx, user, Body.of(request.body).string('name'))),
  );

  route(app, 'GET /api/groups/{id}', (request, _reply, user) => getGroup(ctx, user, requireId(request.params.id)));

  route(app, 'PUT /api/groups/{id}', (request, _reply, user) =>
    renameGroup(ctx, user, requireId(request.params.id), Body.of(request.body).string('name')),
  );

  route(app, 'POST /api/groups/{id}/leave', (request, _reply, user) =>
    leaveGroup(ctx, user, requireId(request.params.id)),
  );

  route(app, 'POST /api/groups/{id}/reset-invite-key', (request, _reply, user) =>
    resetInviteKey(ctx, user, requireId(request.params.id)),
  );

  route(app, 'POST /api/groups/invitation/{key}', async (request, _reply, user) => {
    const unknownKeys = new Throttle(ctx.limiter, 'unknownInvitationsPerUser', user.id);
    await unknownKeys.check();
    const answer = await acceptInvitation(ctx, user, request.params.key.trim());
    if (answer === null) {
      await unknownKeys.hit();
      throw new ApiError(400, 'invalid_invite_key', 'Invalid invite key');
    }
    return answer;
  });
}
