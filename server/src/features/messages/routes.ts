import { FeedPage, GroupPage, Message, MessageBody, MessagePreview, PublicLinkAnswer } from '@kith/common';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { requireUser } from '../../http/auth.js';
import { describeRoute } from '../../http/route-schema.js';
import { Body } from '../../lib/body.js';
import { parseId, requireId } from '../../lib/ids.js';
import { groupFeed, groupPage, randomMessage } from './feed.js';
import { grantPublicMessage } from './public-grants.js';
import { getPublicLink, getPublicMessage, revokePublicLink } from './public-links.js';
import { createMessage, deleteMessage, getMessage, getPreview, updateMessage } from './service.js';

type IdParams = { Params: { id: string } };
const tag = 'messages';
const params = ['id'];

/** Messages, group pages and the feed, public links (contract §5.4, §5.5, §6, §11.1, §11.3). */
export function messageRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post(
    '/messages',
    {
      schema: describeRoute({
        summary: 'Post a message, or reply to one',
        tag,
        auth: 'key',
        body: MessageBody,
        response: { 201: Message },
        errors: [404],
      }),
    },
    async (request, reply) =>
      reply.code(201).send(await createMessage(ctx, requireUser(request), Body.of(request.body))),
  );

  app.get<IdParams>(
    '/messages/:id',
    {
      schema: describeRoute({
        summary: 'A message',
        tag,
        auth: 'key',
        params,
        response: { 200: Message },
        errors: [404],
      }),
    },
    (request) => getMessage(ctx, requireUser(request), parseId(request.params.id)),
  );

  app.put<IdParams>(
    '/messages/:id',
    {
      schema: describeRoute({
        summary: 'Edit a message (data, files) or publish a reply (isInFront)',
        tag,
        auth: 'key',
        params,
        body: MessageBody,
        response: { 200: Message },
        errors: [403, 404],
      }),
    },
    (request) => updateMessage(ctx, requireUser(request), parseId(request.params.id), Body.of(request.body)),
  );

  app.delete<IdParams>(
    '/messages/:id',
    {
      schema: describeRoute({
        summary: 'Delete a message (a post with its thread; a reply with replies becomes a placeholder)',
        tag,
        auth: 'key',
        params,
        response: { 204: null },
        errors: [403, 404],
      }),
    },
    async (request, reply) => {
      await deleteMessage(ctx, requireUser(request), parseId(request.params.id));
      return reply.code(204).send();
    },
  );

  app.get<IdParams>(
    '/messages/:id/preview',
    {
      schema: describeRoute({
        summary: 'A message card',
        tag,
        auth: 'key',
        params,
        response: { 200: MessagePreview },
        errors: [404],
      }),
    },
    (request) => getPreview(ctx, requireUser(request), parseId(request.params.id)),
  );

  app.get<IdParams>(
    '/messages/:id/get-public-link',
    {
      schema: describeRoute({
        summary: 'The public link of a message (made on the first call)',
        tag,
        auth: 'key',
        params,
        response: { 200: PublicLinkAnswer },
        errors: [403, 404],
      }),
    },
    (request) => getPublicLink(ctx, requireUser(request), parseId(request.params.id)),
  );

  app.delete<IdParams>(
    '/messages/:id/public-link',
    {
      schema: describeRoute({
        summary: 'End the public link of a message',
        tag,
        auth: 'key',
        params,
        response: { 204: null },
        errors: [404],
      }),
    },
    async (request, reply) => {
      await revokePublicLink(ctx, requireUser(request), parseId(request.params.id));
      return reply.code(204).send();
    },
  );

  app.get<{ Params: { token: string } }>(
    '/public/:token',
    {
      schema: describeRoute({
        summary: 'The read-only message behind a public link',
        tag,
        auth: 'anyone',
        params: ['token'],
        response: { 200: Message },
        errors: [404],
      }),
    },
    async (request, reply) => {
      const message = await getPublicMessage(ctx, request.params.token);
      // The visitor may now load this message's files, thumbnails and link previews (§1.9).
      grantPublicMessage(ctx, request, reply, message.id, request.params.token);
      return message;
    },
  );

  app.get<{ Params: { id: string; page: string } }>(
    '/groups/:id/page/:page',
    {
      schema: describeRoute({
        summary: 'Ids of a group page (30 front messages, newest activity first)',
        tag,
        auth: 'key',
        params: ['id', 'page'],
        response: { 200: GroupPage },
        errors: [400, 404],
      }),
    },
    (request) => groupPage(ctx, requireUser(request), requireId(request.params.id), request.params.page),
  );

  app.get<{ Params: { id: string }; Querystring: { limit?: string; cursor?: string } }>(
    '/groups/:id/feed',
    {
      schema: describeRoute({
        summary: 'A screen of the group page with the cards inline (cursor paging)',
        tag,
        auth: 'key',
        params,
        response: { 200: FeedPage },
        errors: [400, 404],
      }),
    },
    (request) => groupFeed(ctx, requireUser(request), requireId(request.params.id), request.query),
  );

  app.get<IdParams>(
    '/groups/:id/random',
    {
      schema: describeRoute({
        summary: 'A random message of the group page (204 when there is none)',
        tag,
        auth: 'key',
        params,
        response: { 200: Message, 204: null },
        errors: [404],
      }),
    },
    async (request, reply) => {
      const message = await randomMessage(ctx, requireUser(request), requireId(request.params.id));
      return message === null ? reply.code(204).send() : message;
    },
  );
}
