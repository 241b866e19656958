import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { route } from '../../http/route.js';
import { Body } from '../../lib/body.js';
import { parseId, requireId } from '../../lib/ids.js';
import { allGroupsFeed, allGroupsPage } from './all-groups-feed.js';
import { groupFeed, groupPage, groupPageWithKey, randomMessage } from './feed.js';
import { grantPublicMessage } from '../grants/public-grants.js';
import { getPublicLink, getPublicMessage, revokePublicLink } from './public-links.js';
import {
  createMessage,
  createMessageWithKey,
  deleteMessage,
  getMessage,
  getMessageWithKey,
  getPreview,
  updateMessage,
} from './service.js';
import { callerOfKey } from '../auth/authenticate.js';

/** Messages, group pages and the feed, public links (docs/api §5.4, §5.5, §6, §11.1, §11.3). */
export function messageRoutes(app: FastifyInstance, ctx: AppContext): void {
  route(
    app,
    'POST /api/messages',
    async (request, reply, user) => reply.code(201).send(await createMessage(ctx, user, Body.of(request.body))),
    // On PostgreSQL the caller is read in the post's first statement, one round trip fewer (issue 23).
    ctx.db.dialect === 'postgres'
      ? {
          withKey: async (request, reply, keyHash) =>
            reply
              .code(201)
              .send(await createMessageWithKey(ctx, keyHash, request.body, callerOfKey(ctx, request, reply))),
        }
      : {},
  );

  route(
    app,
    'GET /api/messages/{id}',
    (request, _reply, user) => getMessage(ctx, user, parseId(request.params.id)),
    // On PostgreSQL the caller is read with the message, one round trip instead of two (issue 23).
    ctx.db.dialect === 'postgres'
      ? {
          withKey: (request, reply, keyHash) =>
            getMessageWithKey(ctx, keyHash, parseId(request.params.id), callerOfKey(ctx, request, reply)),
        }
      : {},
  );

  route(app, 'PUT /api/messages/{id}', (request, _reply, user) =>
    updateMessage(ctx, user, parseId(request.params.id), Body.of(request.body)),
  );

  route(app, 'DELETE /api/messages/{id}', async (request, reply, user) => {
    await deleteMessage(ctx, user, parseId(request.params.id));
    return reply.code(204).send();
  });

  route(app, 'GET /api/messages/{id}/preview', (request, _reply, user) =>
    getPreview(ctx, user, parseId(request.params.id)),
  );

  route(app, 'GET /api/messages/{id}/get-public-link', (request, _reply, user) =>
    getPublicLink(ctx, user, parseId(request.params.id)),
  );

  route(app, 'DELETE /api/messages/{id}/public-link', async (request, reply, user) => {
    await revokePublicLink(ctx, user, parseId(request.params.id));
    return reply.code(204).send();
  });

  route(app, 'GET /api/public/{token}', async (request, reply) => {
    const message = await getPublicMessage(ctx, request.params.token);
    // The visitor may now load this message's files, thumbnails and link previews (§1.9).
    grantPublicMessage(ctx, request, reply, message.id, request.params.token);
    return message;
  });

  route(
    app,
    'GET /api/groups/{id}/page/{page}',
    (request, _reply, user) => groupPage(ctx, user, requireId(request.params.id), request.params.page),
    // On PostgreSQL the caller is read with the page, one round trip instead of two (issue 23).
    ctx.db.dialect === 'postgres'
      ? {
          withKey: (request, reply, keyHash) =>
            groupPageWithKey(
              ctx,
              keyHash,
              parseId(request.params.id),
              request.params.page,
              callerOfKey(ctx, request, reply),
            ),
        }
      : {},
  );

  route(app, 'GET /api/groups/{id}/feed', (request, _reply, user) =>
    groupFeed(ctx, user, requireId(request.params.id), request.query),
  );

  route(app, 'GET /api/groups/{id}/random', async (request, reply, user) => {
    const message = await randomMessage(ctx, user, requireId(request.params.id));
    return message === null ? reply.code(204).send() : message;
  });

  route(app, 'GET /api/feed/page/{page}', (request, _reply, user) => allGroupsPage(ctx, user, request.params.page));

  route(app, 'GET /api/feed', (request, _reply, user) => allGroupsFeed(ctx, user, request.query));
}
