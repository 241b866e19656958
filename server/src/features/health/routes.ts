import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../lib/errors.js';
import { route } from '../../http/route.js';
import { pingDatabase } from './queries.js';

/** How long the readiness check waits for the database before calling it unreachable. */
const READY_TIMEOUT_MS = 2_000;

/**
 * GET /api/health and /api/health/ready, for load balancers and orchestrators: liveness (the
 * process answers HTTP; nothing else is touched, so a slow database never gets a live process
 * restarted) and readiness (the stores it needs answer: the database, and Redis and the S3 bucket
 * when configured; while it drains on SIGTERM every request, this one included, is answered 503 by
 * app.ts, so the balancer stops sending it traffic).
 */
export function healthRoutes(app: FastifyInstance, ctx: AppContext): void {
  route(app, 'GET /api/health', () => ({ status: 'ok' as const }));

  route(app, 'GET /api/health/ready', async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), READY_TIMEOUT_MS);
    });
    // One after the other, each started only when its turn comes (no rejection left unheard).
    const checks: [string, () => Promise<unknown>][] = [['database', () => pingDatabase(ctx.db.kysely)]];
    const { redis, files } = ctx;
    if (redis !== null) checks.push(['redis', () => redis.ping()]);
    if (files.ready !== undefined) checks.push(['bucket', () => files.ready?.() ?? Promise.resolve()]);
    try {
      for (const [store, check] of checks) {
        try {
          const running = check();
          running.catch(() => undefined); // a check that loses the race to the timeout may fail later
          await Promise.race([running, timeout]);
        } catch (error) {
          ctx.log.warn({ err: error, store }, 'readiness: a store does not answer');
          throw new ApiError(503, 'service_unavailable', `The ${store} does not answer`, undefined, {
            'Retry-After': '5',
          });
        }
      }
    } finally {
      clearTimeout(timer);
    }
    return {
      status: 'ready' as const,
      checks: {
        database: 'ok' as const,
        ...(redis === null ? {} : { redis: 'ok' as const }),
        ...(files.ready === undefined ? {} : { bucket: 'ok' as const }),
      },
    };
  });
}
