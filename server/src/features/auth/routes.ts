import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { route } from '../../http/route.js';
import { Body } from '../../lib/body.js';
import { setMediaCookie } from './media-cookie.js';
import { login, requestPasswordReset, resetPassword, signup, type SignedIn } from './service.js';

/** Login, signup and password reset: open to anyone, throttled (docs/api §3.2–3.5). */
export function authRoutes(app: FastifyInstance, ctx: AppContext): void {
  // Answers that sign someone in also give them the media cookie (docs/api §1.9).
  const signedIn = <T>(reply: FastifyReply, result: SignedIn<T>): T => {
    setMediaCookie(ctx, reply, result.user);
    return result.answer;
  };

  route(app, 'POST /api/login', async (request, reply) =>
    signedIn(reply, await login(ctx, Body.of(request.body), request.ip)),
  );

  route(app, 'POST /api/signup', async (request, reply) =>
    signedIn(reply, await signup(ctx, Body.of(request.body), request.ip)),
  );

  route(app, 'POST /api/password-reset-mail', (request) =>
    requestPasswordReset(ctx, Body.of(request.body), request.ip),
  );

  route(app, 'POST /api/new-password', async (request, reply) =>
    signedIn(reply, await resetPassword(ctx, Body.of(request.body), request.ip)),
  );
}
