import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { registerErrorHandler } from '../../http/errors.js';
import { ApiError, notFound } from '../../lib/errors.js';
import { safeEqual, sha256 } from '../../lib/secrets.js';
import { registerScrapeGauges } from './service.js';

/** Where the scraper reads the metrics: beside the app, outside the member API (`<BASE_PATH>/metrics`). */
export function metricsPath(basePath: string): string {
  return `${basePath}/metrics`;
}

/** True when the Authorization header carries the metrics token, compared in constant time. */
function carriesToken(header: string | undefined, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  // Hashes first: equal lengths, so the comparison time says nothing about the token's length.
  return match !== null && safeEqual(sha256(match[1] ?? ''), sha256(token));
}

/**
 * GET <BASE_PATH>/metrics (docs/api §3.7): this process's metrics in the Prometheus text
 * format, for a scraper holding `METRICS_TOKEN`. Off (404, as any unknown path) without the token
 * set; 401 without the right `Authorization: Bearer …`. Not part of the member API: it is absent
 * from the endpoint table and the OpenAPI document.
 */
export function metricsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { metrics } = ctx;
  const token = ctx.config.metricsToken;
  if (metrics !== null) registerScrapeGauges(ctx, metrics);
  app.get(metricsPath(ctx.config.basePath), { schema: { hide: true } }, async (request, reply) => {
    if (metrics === null || token === null) throw notFound();
    if (!carriesToken(request.headers.authorization, token)) {
      throw new ApiError(
        401,
        'auth_required',
        'The metrics need the token of METRICS_TOKEN (Authorization: Bearer …)',
        undefined,
        {
          'WWW-Authenticate': 'Bearer realm="kith-metrics"',
        },
      );
    }
    const { text, contentType } = await metrics.exposition();
    return reply.header('Cache-Control', 'no-store').type(contentType).send(text);
  });
}

/**
 * The HTTP server of a `--role worker` process when metrics are on: it serves no API, only
 * `<BASE_PATH>/metrics` on PORT, so its job failures can be scraped like the web processes' numbers.
 */
export async function buildMetricsApp(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log,
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
  });
  registerErrorHandler(app);
  metricsRoutes(app, ctx);
  app.setNotFoundHandler(() => {
    throw notFound();
  });
  await app.ready();
  return app;
}
