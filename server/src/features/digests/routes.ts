import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { route } from '../../http/route.js';
import { ApiError } from '../../lib/errors.js';
import { parseId } from '../../lib/ids.js';
import { Throttle } from '../../lib/throttles.js';
import { stopNotificationEmails } from './service.js';
import { checkUnsubscribeToken } from './unsubscribe.js';

const stopped = (id: string) => ({ id, data: { notification_emails: 'none' as const } });

/** Unsubscribing from digest e-mails (docs/api §3.6). */
export function digestRoutes(app: FastifyInstance, ctx: AppContext): void {
  const byToken = async (rawUserId: string, token: string, ip: string) => {
    const throttle = new Throttle(ctx.limiter, 'stopEmailsBadTokensPerIp', ip);
    await throttle.check();
    const userId = parseId(rawUserId);
    // A bad signature, an expired token and an unknown user all answer alike.
    const ok =
      userId !== null &&
      checkUnsubscribeToken(ctx.config.secretKey, userId, token, ctx.clock.now()) &&
      (await stopNotificationEmails(ctx, userId));
    if (!ok) {
      await throttle.hit();
      throw new ApiError(400, 'invalid_token', 'This unsubscribe link is not valid or has expired');
    }
    return stopped(userId);
  };

  route(app, 'GET /api/stop-notification-emails/{userId}/{token}', (request) =>
    byToken(request.params.userId, request.params.token, request.ip),
  );

  // RFC 8058 one-click: mail programs POST `List-Unsubscribe=One-Click` as a form. Whatever the
  // body, it is ignored here (the path carries the token), so this scope reads none.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => {
      payload.resume();
      payload.on('end', () => done(null, {}));
    });
    route(scope, 'POST /api/stop-notification-emails/{userId}/{token}', (request) =>
      byToken(request.params.userId, request.params.token, request.ip),
    );
  });

  route(app, 'GET /api/stop-notification-emails', async (_request, _reply, user) => {
    await stopNotificationEmails(ctx, user.id);
    return stopped(user.id);
  });
}
