import { LIMITS } from '@kith/common';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { invalidField } from '../../lib/errors.js';
import { parseLimit } from '../../lib/params.js';
import { Body } from '../../lib/body.js';
import { route } from '../../http/route.js';
import { presentNotification } from './presenter.js';
import { canDeleteNotification, canReadNotification, canUpdateNotification } from './policy.js';
import { listNotifications } from './queries.js';
import { loadNotificationFor } from './service.js';

export function notificationRoutes(app: FastifyInstance, ctx: AppContext): void {
  const list = async (userId: string, rawLimit: string | undefined) => {
    const limit = parseLimit(rawLimit, LIMITS.notificationsDefault, LIMITS.notificationsMax);
    return (await listNotifications(ctx.db.kysely, userId, limit)).map(presentNotification);
  };

  route(app, 'GET /api/me/notifications', (_request, _reply, user) => list(user.id, undefined));
  route(app, 'GET /api/me/notifications/{limit}', (request, _reply, user) => list(user.id, request.params.limit));

  /** Kith addition (§11.2): mark everything read up to `before` (default now). */
  route(app, 'POST /api/me/notifications/read-all', async (request, _reply, user) => {
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
  });

  route(app, 'GET /api/notifications/{id}', async (request, _reply, user) =>
    presentNotification(await loadNotificationFor(ctx.db.kysely, user, request.params.id, canReadNotification)),
  );

  route(app, 'PUT /api/notifications/{id}', async (request, _reply, user) => {
    const n = await loadNotificationFor(ctx.db.kysely, user, request.params.id, canUpdateNotification);
    const read = Body.of(request.body).boolean('read');
    if (read === undefined) return presentNotification(n);
    await ctx.db.kysely
      .updateTable('notifications')
      .set({ read: read ? 1 : 0 })
      .where('id', '=', n.id)
      .execute();
    return presentNotification({ ...n, read: read ? 1 : 0 });
  });

  route(app, 'DELETE /api/notifications/{id}', async (request, reply, user) => {
    const n = await loadNotificationFor(ctx.db.kysely, user, request.params.id, canDeleteNotification);
    await ctx.db.kysely.deleteFrom('notifications').where('id', '=', n.id).execute();
    return reply.code(204).send();
  });
}
