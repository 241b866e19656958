import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { Body } from '../../lib/body.js';
import { login, requestPasswordReset, resetPassword, signup } from './service.js';

/** Login, signup and password reset: open to anyone, throttled (contract §3.2–3.5). */
export function authRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/login', (request) => login(ctx, Body.of(request.body), request.ip));
  app.post('/signup', (request) => signup(ctx, Body.of(request.body), request.ip));
  app.post('/password-reset-mail', (request) => requestPasswordReset(ctx, Body.of(request.body), request.ip));
  app.post('/new-password', (request) => resetPassword(ctx, Body.of(request.body), request.ip));
}
