import { digestRoutes } from './features/digests/routes.js';
import { exportRoutes } from './features/exports/routes.js';
import Fastify, { LogController, type FastifyInstance, type FastifyReply } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { AppContext } from './context.js';
import { LIMITS, type EndpointAuth } from '@kith/common';
import { authRoutes } from './features/auth/routes.js';
import { bookmarkRoutes } from './features/bookmarks/routes.js';
import { reactionRoutes } from './features/reactions/routes.js';
import { pushRoutes } from './features/push/routes.js';
import { fileBytesRoutes, fileRoutes } from './features/files/routes.js';
import { linkRoutes } from './features/links/routes.js';
import { eventRoutes } from './features/live/stream.js';
import { messageRoutes } from './features/messages/routes.js';
import { groupRoutes } from './features/groups/routes.js';
import { healthRoutes } from './features/health/routes.js';
import { metricsPath, metricsRoutes } from './features/metrics/routes.js';
import { infoRoutes } from './features/info/routes.js';
import { notificationRoutes } from './features/notifications/routes.js';
import { searchRoutes } from './features/search/routes.js';
import { userRoutes } from './features/users/routes.js';
import { accountRoutes } from './features/account/routes.js';
import { registerAuthentication } from './features/auth/authenticate.js';
import { handleClientError, registerErrorHandler } from './http/errors.js';
import { redactUrl } from './http/redact.js';
import { registerApiDocs, registerOpenApiGenerator } from './http/openapi.js';
import { PAGE_HEADERS, protectHtml, registerWebClient } from './http/web.js';
import { ApiError } from './lib/errors.js';
import { newId } from './lib/ids.js';
import { parseJsonObject } from './lib/json.js';

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Pino's level numbers: a line is written when its level's number is at least the logger's. */
const LOG_LEVELS: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};

/** The path of a URL, without its query string (one scan, no array: it runs on every request). */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** A route as the app registered it: its method, full URL and declared authentication, if any. */
export interface RegisteredRoute {
  method: string;
  url: string;
  auth: EndpointAuth | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, in order (the endpoint-table test walks them). */
    registeredRoutes: readonly RegisteredRoute[];
  }
}

/** Headers on every API answer (docs/api §1.4); routes may set their own Cache-Control. */
const API_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
} as const;

/**
 * Builds the Fastify app without listening: `main.ts` serves it, tests drive it in process with
 * `app.inject`. Every route of the API lives under `<BASE_PATH>/api`.
 */
export async function buildApp(
  ctx: AppContext,
  options: {
    /** Called as each request starts and ends (main.ts: memory given back when quiet, lib/quiet-reclaim.ts). */
    onActivity?: () => void;
  } = {},
): Promise<FastifyInstance> {
  const onActivity = options.onActivity ?? (() => undefined);
  const { config } = ctx;
  const apiPrefix = `${config.basePath}/api`;
  const app = Fastify({
    loggerInstance: ctx.log,
    // Our own onResponse hook logs one line per request, with secrets removed from the URL.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => newId(),
    requestIdHeader: false,
    bodyLimit: LIMITS.jsonBodyBytes,
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    // On SIGTERM, in-flight requests finish; idle keep-alive connections are closed at once.
    forceCloseConnections: 'idle',
    // Requests that arrive while closing are refused by our own hook below, in the envelope.
    return503OnClosing: false,
    // Requests Node's parser refuses (headers too large, not HTTP) are answered in the envelope too.
    clientErrorHandler: handleClientError,
    // Long enough for any real key or token in a path; longer ones answer 404 in the envelope.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    // Errors Fastify meets before routing (a malformed URL, an over-long parameter) get the same
    // envelope and headers as every other answer.
    frameworkErrors: (error, request, rawReply) => {
      const reply = rawReply as FastifyReply;
      const apiError =
        error.code === 'FST_ERR_BAD_URL'
          ? new ApiError(400, 'invalid_field', 'The URL is malformed')
          : new ApiError(404, 'not_found', 'Not found');
      void reply
        .code(apiError.status)
        .headers({ ...API_HEADERS, 'X-Request-Id': request.id })
        .send(apiError.toBody());
    },
  });

  // Bodies are JSON whatever the Content-Type (docs/api §1.3); an empty body counts as {}. They are
  // read as bytes and decoded strictly: a lenient decoder would turn invalid UTF-8 into U+FFFD and
  // store a text the sender never wrote.
  app.removeAllContentTypeParsers();
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body: Buffer, done) => {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      return done(new ApiError(400, 'invalid_json', 'The request body is not valid UTF-8'));
    }
    if (text.trim() === '') return done(null, {});
    const value = parseJsonObject(text);
    if (value instanceof Error) {
      return done(
        new ApiError(
          400,
          'invalid_json',
          'The request body must be a JSON object without NUL characters or deep nesting',
        ),
      );
    }
    done(null, value);
  });

  // A second router that only learns the API's paths, to tell 405 (path exists) from 404.
  const apiPaths = FindMyWay({ ignoreTrailingSlash: true });
  const registered: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', registered);
  app.addHook('onRoute', (route) => {
    const underApi = route.url.startsWith(`${apiPrefix}/`);
    for (const method of [route.method].flat()) {
      registered.push({ method, url: route.url, auth: route.config?.auth });
      if (underApi && !apiPaths.hasRoute(method as HTTPMethod, route.url))
        apiPaths.on(method as HTTPMethod, route.url, () => undefined);
    }
  });

  // Set when the server starts closing (SIGTERM): a request that still arrives on a kept-alive
  // connection is told to come back, and its connection is closed.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  // The hooks below run on every request: they are synchronous (`done` style), as Fastify runs those
  // in line where an async hook costs a promise and a turn of the microtask queue each (issue 23).
  app.addHook('onRequest', (request, reply, done) => {
    onActivity();
    void reply.header('X-Request-Id', request.id);
    void reply.header('X-Content-Type-Options', API_HEADERS['X-Content-Type-Options']);
    void reply.header('Referrer-Policy', API_HEADERS['Referrer-Policy']);
    if (closing) {
      done(
        new ApiError(503, 'service_unavailable', 'The server is restarting. Try again in a moment', undefined, {
          'Retry-After': '5',
          Connection: 'close',
        }),
      );
      return;
    }
    // CORS only for origins the operator listed; credentials are never allowed (docs/api §1.1).
    const origin = request.headers.origin;
    if (origin !== undefined && config.corsOrigins.includes(origin)) {
      void reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin');
      if (request.method === 'OPTIONS') {
        // Answered here: the chain stops, `done` is not called.
        void reply
          .code(204)
          .header('Access-Control-Allow-Methods', 'GET, HEAD, POST, PUT, DELETE')
          .header('Access-Control-Allow-Headers', 'X-AUTH-TOKEN, Content-Type')
          .header('Access-Control-Max-Age', '600')
          .send();
        return;
      }
    }
    done();
  });

  const apiPrefixSlash = `${apiPrefix}/`;
  const isApiPath = (url: string) => {
    const path = pathOf(url);
    return path === apiPrefix || path.startsWith(apiPrefixSlash);
  };

  app.addHook('onSend', (request, reply, payload, done) => {
    if (isApiPath(request.url) && !reply.hasHeader('Cache-Control')) {
      void reply.header('Cache-Control', API_HEADERS['Cache-Control']);
    }
    protectHtml(reply);
    // An answer finished while closing also closes its kept-alive connection. Left open, a
    // balancer would send the next request over it, which could only be refused with a 503 that
    // nginx does not retry for a POST (deploy/nginx/kith.conf), and the process would wait for
    // that request before it could exit. Closed, the next request opens a new connection, which
    // is refused, and goes to another process.
    if (closing) void reply.header('Connection', 'close');
    done(null, payload);
  });

  // One line per request, without headers or secrets in the URL; the probes a load balancer sends
  // every few seconds, and the scrapes of the metrics, only at debug level. Scrapes are not counted
  // in the request metrics either: they are not the members' traffic.
  const probePath = `${apiPrefix}/health`;
  const scrapePath = metricsPath(config.basePath);
  const probePathSlash = `${probePath}/`;
  const scrapePathSlash = `${scrapePath}/`;
  app.addHook('onResponse', (request, reply, done) => {
    onActivity();
    // While closing, a connection left idle goes at once, also one whose answer began before the
    // closing did and so went out without `Connection: close` (server.close() only closed those
    // idle at that moment): the process exits without waiting for a balancer to send a request
    // over it, and a balancer never gets to.
    if (closing) app.server.closeIdleConnections();
    const url = request.url;
    const path = pathOf(url);
    const scrape = path === scrapePath || path === scrapePathSlash;
    const probe = scrape || url === probePath || url.startsWith(probePathSlash);
    // By the route's pattern (`/api/messages/:id`), never the URL, which holds ids and keys.
    if (!scrape)
      ctx.metrics?.observeRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    const level = probe && reply.statusCode < 500 ? 'debug' : 'info';
    // The line's fields (the URL's redaction above all) are built only when it is written: a
    // server logging at `warn` skipped them on every request.
    if ((LOG_LEVELS[request.log.level] ?? 0) > (LOG_LEVELS[level] ?? 0)) {
      done();
      return;
    }
    request.log[level](
      {
        method: request.method,
        url: redactUrl(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
    done();
  });

  registerErrorHandler(app);
  registerAuthentication(app, ctx);

  // Route schemas serialize answers and document requests; request bodies are checked by the
  // services with the contract's codes and order of checks (docs/adr/0001-request-validation.md).
  app.setValidatorCompiler(() => (value: unknown) => ({ value }));
  await registerOpenApiGenerator(app, config);

  await app.register(
    async (api) => {
      infoRoutes(api, ctx);
      healthRoutes(api, ctx);
      authRoutes(api, ctx);
      userRoutes(api, ctx);
      accountRoutes(api, ctx);
      groupRoutes(api, ctx);
      notificationRoutes(api, ctx);
      searchRoutes(api, ctx);
      fileRoutes(api, ctx);
      linkRoutes(api, ctx);
      messageRoutes(api, ctx);
      bookmarkRoutes(api, ctx);
      reactionRoutes(api, ctx);
      pushRoutes(api, ctx);
      eventRoutes(api, ctx);
      digestRoutes(api, ctx);
      exportRoutes(api, ctx);
    },
    { prefix: apiPrefix },
  );
  await fileBytesRoutes(app, ctx);
  metricsRoutes(app, ctx);
  if (config.apiDocs) await registerApiDocs(app, apiPrefix);

  const indexHtml = await registerWebClient(app, config);

  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    if (isApiPath(path)) {
      const allowed = METHODS.filter((m) => apiPaths.find(m, path) !== null);
      if (allowed.length > 0) {
        throw new ApiError(405, 'method_not_allowed', `Use ${allowed.join(', ')} on this path`, undefined, {
          Allow: allowed.join(', '),
        });
      }
      throw new ApiError(404, 'route_not_found', 'There is no such API route');
    }
    const inApp = path === config.basePath || path.startsWith(`${config.basePath}/`);
    if (
      inApp &&
      (request.method === 'GET' || request.method === 'HEAD') &&
      !path.startsWith(`${config.basePath}/files/`)
    ) {
      return reply.code(200).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(indexHtml);
    }
    if (config.basePath !== '' && path === '/') return reply.redirect(`${config.basePath}/`);
    throw new ApiError(404, 'not_found', 'Not found');
  });

  return app;
}
