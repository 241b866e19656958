import { LIMITS, Notification, NotificationUpdateBody, ReadAllAnswer, ReadAllBody } from '@kith/common';
import { Type, type TSchema } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { invalidField } from '../../lib/errors.js';
import { parseLimit } from '../../lib/params.js';
import { Body } from '../../lib/body.js';
import { requireUser } from '../../http/auth.js';
import { describeRoute } from '../../http/route-schema.js';
import { presentNotification } from './presenter.js';
import { canDeleteNotification, canReadNotification, canUpdateNotification } from './policy.js';
import { listNotifications } from './queries.js';
import { loadNotificationFor } from './service.js';

const tag = 'notifications';

export function notificationRoutes(app: FastifyInstance, ctx: AppContext): void {
  const list = async (userId: string, rawLimit: string | undefined) => {
    const limit = parseLimit(rawLimit, LIMITS.notificationsDefault, LIMITS.notificationsMax);
    return (await listNotifications(ctx.db.kysely, userId, limit)).map(presentNotification);
  };

  const listSchema = (params?: string[]) =>
    describeRoute({
      summary: 'The caller’s notifications, newest first (default 50, at most 200)',
      tag,
      auth: 'key',
      ...(params !== undefined ? { params } : {}),
      response: { 200: Type.Array(Notification) },
    });
  app.get('/me/notifications', { schema: listSchema() }, async (request) => list(requireUser(request).id, undefined));
  app.get<{ Params: { limit: string } }>(
    '/me/notifications/:limit',
    { schema: listSchema(['limit']) },
    async (request) => list(requireUser(request).id, request.params.limit),
  );

  /** Kith addition (§11.2): mark everything read up to `before` (default now). */
  app.post(
    '/me/notifications/read-all',
    {
      schema: describeRoute({
        summary: 'Mark the caller’s notifications read, up to `before` (default now)',
        tag,
        auth: 'key',
        body: ReadAllBody,
        response: { 200: ReadAllAnswer },
      }),
    },
    async (request) => {
      const user = requireUser(request);
      const before = Body.of(request.body).integer('before');
      if (before !== undefined && before < 0) throw invalidField('before', 'before must be a Unix time in seconds');
      const limitMs = before === undefined ? ctx.clock.now() : before * 1000 + 999;
      const result = await ctx.db.kysely
        .updateTable('notifications')
        .set({ read: 1 })
        .where('user_id', '=', user.id)
        .where('read', '=', 0)
        .where('created_at', '<=', limitMs)
        .executeTakeFirst();
      return { updated: Number(result.numUpdatedRows) };
    },
  );

  const one = (summary: string, response: Record<number, TSchema | null>, body?: TSchema) =>
    describeRoute({
      summary,
      tag,
      auth: 'key',
      params: ['id'],
      ...(body !== undefined ? { body } : {}),
      response,
      errors: [404],
    });

  app.get<{ Params: { id: string } }>(
    '/notifications/:id',
    { schema: one('One notification', { 200: Notification }) },
    async (request) =>
      presentNotification(
        await loadNotificationFor(ctx.db.kysely, requireUser(request), request.params.id, canReadNotification),
      ),
  );

  app.put<{ Params: { id: string } }>(
    '/notifications/:id',
    { schema: one('Mark a notification read or unread', { 200: Notification }, NotificationUpdateBody) },
    async (request) => {
      const user = requireUser(request);
      const n = await loadNotificationFor(ctx.db.kysely, user, request.params.id, canUpdateNotification);
      const read = Body.of(request.body).boolean('read');
      if (read === undefined) return presentNotification(n);
      await ctx.db.kysely
        .updateTable('notifications')
        .set({ read: read ? 1 : 0 })
        .where('id', '=', n.id)
        .execute();
      return presentNotification({ ...n, read: read ? 1 : 0 });
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/notifications/:id',
    { schema: one('Delete a notification', { 204: null }) },
    async (request, reply) => {
      const n = await loadNotificationFor(
        ctx.db.kysely,
        requireUser(request),
        request.params.id,
        canDeleteNotification,
      );
      await ctx.db.kysely.deleteFrom('notifications').where('id', '=', n.id).execute();
      return reply.code(204).send();
    },
  );
}
