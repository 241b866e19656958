import { StopEmailsAnswer } from '@kith/common';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { requireUser } from '../../http/auth.js';
import { describeRoute } from '../../http/route-schema.js';
import { ApiError } from '../../lib/errors.js';
import { parseId } from '../../lib/ids.js';
import { Throttle } from '../auth/throttles.js';
import { stopNotificationEmails } from './service.js';
import { checkUnsubscribeToken } from './unsubscribe.js';

const tag = 'account';

const stopped = (id: string) => ({ id, data: { notification_emails: 'none' as const } });

/** Unsubscribing from digest e-mails (contract §3.6). */
export function digestRoutes(app: FastifyInstance, ctx: AppContext): void {
  const byToken = async (rawUserId: string, token: string, ip: string) => {
    const throttle = new Throttle(ctx.limiter, 'stopEmailsBadTokensPerIp', ip);
    throttle.check();
    const userId = parseId(rawUserId);
    // A bad signature, an expired token and an unknown user all answer alike.
    const ok =
      userId !== null &&
      checkUnsubscribeToken(ctx.config.secretKey, userId, token, ctx.clock.now()) &&
      (await stopNotificationEmails(ctx, userId));
    if (!ok) {
      throttle.hit();
      throw new ApiError(400, 'invalid_token', 'This unsubscribe link is not valid or has expired');
    }
    return stopped(userId);
  };

  const tokenSchema = (summary: string) =>
    describeRoute({
      summary,
      tag,
      auth: 'anyone',
      params: ['userId', 'token'],
      response: { 200: StopEmailsAnswer },
      errors: [400, 429],
    });

  app.get<{ Params: { userId: string; token: string } }>(
    '/stop-notification-emails/:userId/:token',
    { schema: tokenSchema('Turn notification e-mails off with the link of a digest') },
    (request) => byToken(request.params.userId, request.params.token, request.ip),
  );

  // RFC 8058 one-click: mail programs POST `List-Unsubscribe=One-Click` as a form. Whatever the
  // body, it is ignored here (the path carries the token), so this scope reads none.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => {
      payload.resume();
      payload.on('end', () => done(null, {}));
    });
    scope.post<{ Params: { userId: string; token: string } }>(
      '/stop-notification-emails/:userId/:token',
      { schema: tokenSchema('One-click unsubscribe (RFC 8058) from a digest’s List-Unsubscribe header') },
      (request) => byToken(request.params.userId, request.params.token, request.ip),
    );
  });

  app.get(
    '/stop-notification-emails',
    {
      schema: describeRoute({
        summary: 'Turn the caller’s notification e-mails off',
        tag,
        auth: 'key',
        response: { 200: StopEmailsAnswer },
      }),
    },
    async (request) => {
      const user = requireUser(request);
      await stopNotificationEmails(ctx, user.id);
      return stopped(user.id);
    },
  );
}
