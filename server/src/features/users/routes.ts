import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { route } from '../../http/route.js';
import { parseId } from '../../lib/ids.js';
import { getUser } from './service.js';

/** Other people's profiles (docs/api §4.2); the caller's own account is features/account. */
export function userRoutes(app: FastifyInstance, ctx: AppContext): void {
  route(app, 'GET /api/users/{id}', async (request, reply, user) => {
    const answer = await getUser(ctx, user, parseId(request.params.id));
    // Profiles may be kept by the browser for a while, never by shared caches (docs/api §4.2).
    void reply.header('Cache-Control', 'private, max-age=300');
    return answer;
  });
}
