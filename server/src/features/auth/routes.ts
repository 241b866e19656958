import {
  ApiKeyAnswer,
  EmptyAnswer,
  LoginBody,
  NewPasswordBody,
  ResetMailBody,
  SignupAnswer,
  SignupBody,
} from '@kith/common';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { describeRoute } from '../../http/route-schema.js';
import { Body } from '../../lib/body.js';
import { setMediaCookie } from './media-cookie.js';
import { login, requestPasswordReset, resetPassword, signup, type SignedIn } from './service.js';

const tag = 'account';

/** Login, signup and password reset: open to anyone, throttled (contract §3.2–3.5). */
export function authRoutes(app: FastifyInstance, ctx: AppContext): void {
  // Answers that sign someone in also give them the media cookie (contract §1.9).
  const signedIn = <T>(reply: FastifyReply, result: SignedIn<T>): T => {
    setMediaCookie(ctx, reply, result.user);
    return result.answer;
  };

  app.post(
    '/login',
    {
      schema: describeRoute({
        summary: 'Log in; answers the account API key',
        tag,
        auth: 'anyone',
        body: LoginBody,
        response: { 200: ApiKeyAnswer },
        errors: [401, 429],
      }),
    },
    async (request, reply) => signedIn(reply, await login(ctx, Body.of(request.body), request.ip)),
  );

  app.post(
    '/signup',
    {
      schema: describeRoute({
        summary: 'Sign up, or log in, through a group invite key',
        tag,
        auth: 'anyone',
        body: SignupBody,
        response: { 200: SignupAnswer },
        errors: [401, 429],
      }),
    },
    async (request, reply) => signedIn(reply, await signup(ctx, Body.of(request.body), request.ip)),
  );

  app.post(
    '/password-reset-mail',
    {
      schema: describeRoute({
        summary: 'Send a password reset link (same answer whether or not the account exists)',
        tag,
        auth: 'anyone',
        body: ResetMailBody,
        response: { 200: EmptyAnswer },
        errors: [429, 503],
      }),
    },
    (request) => requestPasswordReset(ctx, Body.of(request.body), request.ip),
  );

  app.post(
    '/new-password',
    {
      schema: describeRoute({
        summary: 'Set a new password with a reset key; answers a new API key',
        tag,
        auth: 'anyone',
        body: NewPasswordBody,
        response: { 200: ApiKeyAnswer },
        errors: [429],
      }),
    },
    async (request, reply) => signedIn(reply, await resetPassword(ctx, Body.of(request.body), request.ip)),
  );
}
