import { LIMITS } from '@kith/common';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { parseLimit } from '../../lib/params.js';
import { Body } from '../../lib/body.js';
import { route } from '../../http/route.js';
import { parseIncludes, presentNotification } from './presenter.js';
import { canReadNotification } from './policy.js';
import { listNotifications } from './queries.js';
import { deleteNotification, loadNotificationFor, markAllRead, updateNotification } from './service.js';

export function notificationRoutes(app: FastifyInstance, ctx: AppContext): void {
  // new_reaction notifications are listed only with ?include=reactions: the 0.5.6 client would show
  // them as a blank row leading nowhere (docs/decisions.md, "Reactions").
  // mention notifications are listed to every client, but as `mention` only with ?include=mentions:
  // to the 0.5.6 client they are the new_message or new_comment they replace (presenter.ts).
  const list = async (userId: string, rawLimit: string | undefined, rawInclude: unknown) => {
    const limit = parseLimit(rawLimit, LIMITS.notificationsDefault, LIMITS.notificationsMax);
    const include = parseIncludes(rawInclude);
    const rows = await listNotifications(ctx.db.kysely, userId, limit, { reactions: include.reactions });
    return rows.map((n) => presentNotification(n, include));
  };

  route(app, 'GET /api/me/notifications', (request, _reply, user) => list(user.id, undefined, request.query.include));
  route(app, 'GET /api/me/notifications/{limit}', (request, _reply, user) =>
    list(user.id, request.params.limit, request.query.include),
  );

  /** Kith addition (§11.2): mark everything read up to `before` (default now). */
  route(app, 'POST /api/me/notifications/read-all', (request, _reply, user) =>
    markAllRead(ctx, user, Body.of(request.body)),
  );

  // The 0.5.6 client reads each notification of its list here: the same presentation as the list's.
  route(app, 'GET /api/notifications/{id}', async (request, _reply, user) =>
    presentNotification(
      await loadNotificationFor(ctx.db.kysely, user, request.params.id, canReadNotification),
      parseIncludes(request.query.include),
    ),
  );

  route(app, 'PUT /api/notifications/{id}', (request, _reply, user) =>
    updateNotification(ctx, user, request.params.id, Body.of(request.body), parseIncludes(request.query.include)),
  );

  route(app, 'DELETE /api/notifications/{id}', async (request, reply, user) => {
    await deleteNotification(ctx, user, request.params.id);
    return reply.code(204).send();
  });
}
