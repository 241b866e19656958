import { Me, NewApiKeyAnswer, UserOrMe, UserUpdateBody } from '@kith/common';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { requireUser } from '../../http/auth.js';
import { describeRoute } from '../../http/route-schema.js';
import { Body } from '../../lib/body.js';
import { parseId } from '../../lib/ids.js';
import { clearMediaCookie, setMediaCookie } from '../auth/media-cookie.js';
import { deleteUser, getMe, getUser, resetApiKey, updateUser } from './service.js';

type IdParams = { Params: { id: string } };
const tag = 'users';
const params = ['id'];

/** The caller's account and other people's profiles (contract §4). */
export function userRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/me',
    { schema: describeRoute({ summary: 'The caller', tag, auth: 'key', response: { 200: Me } }) },
    (request) => getMe(ctx, requireUser(request)),
  );

  app.get<IdParams>(
    '/users/:id',
    {
      schema: describeRoute({
        summary: 'A visible user (the caller gets the Me object)',
        tag,
        auth: 'key',
        params,
        response: { 200: UserOrMe },
        errors: [404],
      }),
    },
    async (request, reply) => {
      const answer = await getUser(ctx, requireUser(request), parseId(request.params.id));
      // Profiles may be kept by the browser for a while, never by shared caches (contract §4.2).
      void reply.header('Cache-Control', 'private, max-age=300');
      return answer;
    },
  );

  app.put<IdParams>(
    '/users/:id',
    {
      schema: describeRoute({
        summary: 'Change the caller’s profile and settings',
        tag,
        auth: 'key',
        params,
        body: UserUpdateBody,
        response: { 200: Me },
        errors: [403, 409],
      }),
    },
    (request) => updateUser(ctx, requireUser(request), parseId(request.params.id), Body.of(request.body)),
  );

  app.delete<IdParams>(
    '/users/:id',
    {
      schema: describeRoute({
        summary: 'Delete the caller’s account',
        tag,
        auth: 'key',
        params,
        response: { 204: null },
        errors: [403],
      }),
    },
    async (request, reply) => {
      await deleteUser(ctx, requireUser(request), parseId(request.params.id));
      clearMediaCookie(ctx, reply);
      return reply.code(204).send();
    },
  );

  app.post<IdParams>(
    '/users/:id/reset-api-key',
    {
      schema: describeRoute({
        summary: 'Replace the caller’s API key; the old one stops working at once',
        tag,
        auth: 'key',
        params,
        response: { 200: NewApiKeyAnswer },
        errors: [403],
      }),
    },
    async (request, reply) => {
      const result = await resetApiKey(ctx, requireUser(request), parseId(request.params.id));
      // The cookie of the old key stops working; the new one names the new key version.
      setMediaCookie(ctx, reply, result.user);
      return result.answer;
    },
  );
}
