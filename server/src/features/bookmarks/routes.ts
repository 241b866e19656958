import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { route } from '../../http/route.js';
import { Body } from '../../lib/body.js';
import { addBookmark, listBookmarks, removeBookmark } from './service.js';

/** Bookmarks, visible to their owner only (docs/api §9). */
export function bookmarkRoutes(app: FastifyInstance, ctx: AppContext): void {
  route(app, 'POST /api/bookmarks', async (request, reply, user) => {
    const { created, bookmark } = await addBookmark(ctx, user, Body.of(request.body));
    return reply.code(created ? 201 : 200).send(bookmark);
  });

  route(app, 'DELETE /api/bookmarks/{id}', async (request, reply, user) => {
    await removeBookmark(ctx, user, request.params.id);
    return reply.code(204).send();
  });

  route(app, 'GET /api/me/bookmarks', (request, _reply, user) =>
    listBookmarks(ctx, user, undefined, request.query.expand === 'message'),
  );
  route(app, 'GET /api/me/bookmarks/{limit}', (request, _reply, user) =>
    listBookmarks(ctx, user, request.params.limit, request.query.expand === 'message'),
  );
}
