import { Bookmark, BookmarkBody } from '@kith/common';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { requireUser } from '../../http/auth.js';
import { describeRoute } from '../../http/route-schema.js';
import { Body } from '../../lib/body.js';
import { addBookmark, listBookmarks, removeBookmark } from './service.js';

const tag = 'bookmarks';

/** Bookmarks, visible to their owner only (contract §9). */
export function bookmarkRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post(
    '/bookmarks',
    {
      schema: describeRoute({
        summary: 'Bookmark a message (200 with the existing bookmark when already bookmarked)',
        tag,
        auth: 'key',
        body: BookmarkBody,
        response: { 200: Bookmark, 201: Bookmark },
        errors: [404],
      }),
    },
    async (request, reply) => {
      const { created, bookmark } = await addBookmark(ctx, requireUser(request), Body.of(request.body));
      return reply.code(created ? 201 : 200).send(bookmark);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/bookmarks/:id',
    {
      schema: describeRoute({
        summary: 'Remove a bookmark',
        tag,
        auth: 'key',
        params: ['id'],
        response: { 204: null },
        errors: [404],
      }),
    },
    async (request, reply) => {
      await removeBookmark(ctx, requireUser(request), request.params.id);
      return reply.code(204).send();
    },
  );

  const listSchema = (params?: string[]) =>
    describeRoute({
      summary: 'The caller’s bookmarks, newest first (default 1000, at most 2000; expand=message for cards)',
      tag,
      auth: 'key',
      ...(params !== undefined ? { params } : {}),
      response: { 200: Type.Array(Bookmark) },
      errors: [400],
    });
  type ListRequest = { Params: { limit?: string }; Querystring: { expand?: string } };
  const list = (
    request: { params: { limit?: string }; query: { expand?: string } } & Parameters<typeof requireUser>[0],
  ) => listBookmarks(ctx, requireUser(request), request.params.limit, request.query.expand === 'message');
  app.get<ListRequest>('/me/bookmarks', { schema: listSchema() }, (request) => list(request));
  app.get<ListRequest>('/me/bookmarks/:limit', { schema: listSchema(['limit']) }, (request) => list(request));
}
