import { Group, GroupNameBody, GroupRef, InviteKeyAnswer } from '@kith/common';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { requireUser } from '../../http/auth.js';
import { describeRoute } from '../../http/route-schema.js';
import { Body } from '../../lib/body.js';
import { ApiError } from '../../lib/errors.js';
import { requireId } from '../../lib/ids.js';
import { Throttle } from '../auth/throttles.js';
import { acceptInvitation, createGroup, getGroup, leaveGroup, renameGroup, resetInviteKey } from './service.js';

type IdParams = { Params: { id: string } };
const tag = 'groups';
const params = ['id'];

/** Groups: create, read, rename, leave, invitation keys (contract §5). */
export function groupRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post(
    '/groups',
    {
      schema: describeRoute({
        summary: 'Create a group; the caller is its first member',
        tag,
        auth: 'key',
        body: GroupNameBody,
        response: { 201: Group },
      }),
    },
    async (request, reply) => {
      const user = requireUser(request);
      const answer = await createGroup(ctx, user, Body.of(request.body).string('name'));
      return reply.code(201).send(answer);
    },
  );

  app.get<IdParams>(
    '/groups/:id',
    {
      schema: describeRoute({
        summary: 'A group of the caller',
        tag,
        auth: 'key',
        params,
        response: { 200: Group },
        errors: [404],
      }),
    },
    (request) => getGroup(ctx, requireUser(request), requireId(request.params.id)),
  );

  app.put<IdParams>(
    '/groups/:id',
    {
      schema: describeRoute({
        summary: 'Rename a group (only name is read)',
        tag,
        auth: 'key',
        params,
        body: GroupNameBody,
        response: { 200: Group },
        errors: [404],
      }),
    },
    (request) => {
      const user = requireUser(request);
      return renameGroup(ctx, user, requireId(request.params.id), Body.of(request.body).string('name'));
    },
  );

  app.post<IdParams>(
    '/groups/:id/leave',
    {
      schema: describeRoute({
        summary: 'Leave a group',
        tag,
        auth: 'key',
        params,
        response: { 200: GroupRef },
        errors: [404],
      }),
    },
    (request) => leaveGroup(ctx, requireUser(request), requireId(request.params.id)),
  );

  app.post<IdParams>(
    '/groups/:id/reset-invite-key',
    {
      schema: describeRoute({
        summary: 'Replace the invitation key; the old one stops working at once',
        tag,
        auth: 'key',
        params,
        response: { 200: InviteKeyAnswer },
        errors: [403, 404],
      }),
    },
    (request) => resetInviteKey(ctx, requireUser(request), requireId(request.params.id)),
  );

  app.post<{ Params: { key: string } }>(
    '/groups/invitation/:key',
    {
      schema: describeRoute({
        summary: 'Join a group by its invitation key (a member joining again is a no-op)',
        tag,
        auth: 'key',
        params: ['key'],
        response: { 200: GroupRef },
        errors: [400, 429],
      }),
    },
    async (request) => {
      const user = requireUser(request);
      const unknownKeys = new Throttle(ctx.limiter, 'unknownInvitationsPerUser', user.id);
      unknownKeys.check();
      const answer = await acceptInvitation(ctx, user, request.params.key.trim());
      if (answer === null) {
        unknownKeys.hit();
        throw new ApiError(400, 'invalid_invite_key', 'Invalid invite key');
      }
      return answer;
    },
  );
}
