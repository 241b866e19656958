import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { requireUser } from '../../http/auth.js';
import { Body } from '../../lib/body.js';
import { clearMediaCookie, setMediaCookie } from '../auth/media-cookie.js';
import { parseId } from '../../lib/ids.js';
import { deleteUser, getMe, getUser, resetApiKey, updateUser } from './service.js';

type IdParams = { Params: { id: string } };

/** The caller's account and other people's profiles (contract §4). */
export function userRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/me', (request) => getMe(ctx, requireUser(request)));

  app.get<IdParams>('/users/:id', async (request, reply) => {
    const answer = await getUser(ctx, requireUser(request), parseId(request.params.id));
    // Profiles may be kept by the browser for a while, never by shared caches (contract §4.2).
    void reply.header('Cache-Control', 'private, max-age=300');
    return answer;
  });

  app.put<IdParams>('/users/:id', (request) =>
    updateUser(ctx, requireUser(request), parseId(request.params.id), Body.of(request.body)),
  );

  app.delete<IdParams>('/users/:id', async (request, reply) => {
    await deleteUser(ctx, requireUser(request), parseId(request.params.id));
    clearMediaCookie(ctx, reply);
    return reply.code(204).send();
  });

  app.post<IdParams>('/users/:id/reset-api-key', async (request, reply) => {
    const result = await resetApiKey(ctx, requireUser(request), parseId(request.params.id));
    // The cookie of the old key stops working; the new one names the new key version.
    setMediaCookie(ctx, reply, result.user);
    return result.answer;
  });
}
