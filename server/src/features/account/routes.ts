import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { route } from '../../http/route.js';
import { Body } from '../../lib/body.js';
import { parseId } from '../../lib/ids.js';
import { clearMediaCookie, setMediaCookie } from '../auth/media-cookie.js';
import { getMe } from '../users/service.js';
import { deleteUser, resetApiKey, updateUser } from './service.js';

/** The caller's own account: read, change, delete, new API key (docs/api §4). */
export function accountRoutes(app: FastifyInstance, ctx: AppContext): void {
  route(app, 'GET /api/me', (_request, _reply, user) => getMe(ctx, user));

  route(app, 'PUT /api/users/{id}', (request, _reply, user) =>
    updateUser(ctx, user, parseId(request.params.id), Body.of(request.body)),
  );

  route(app, 'DELETE /api/users/{id}', async (request, reply, user) => {
    await deleteUser(ctx, user, parseId(request.params.id));
    clearMediaCookie(ctx, reply);
    return reply.code(204).send();
  });

  route(app, 'POST /api/users/{id}/reset-api-key', async (request, reply, user) => {
    const result = await resetApiKey(ctx, user, parseId(request.params.id));
    // The cookie of the old key stops working; the new one names the new key version.
    setMediaCookie(ctx, reply, result.user);
    return result.answer;
  });
}
