import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { UserRow } from '../../db/rows.js';
import { unauthenticated } from '../../http/caller.js';
import { apiKeyHash } from './api-keys.js';
import { refreshMediaCookie } from './media-cookie.js';
import { ActivityRecorder, activitySecond } from './activity.js';
import { findUserByApiKeyHash } from '../users/queries.js';

/** The id of the newest live event when a request was read (also on the stream's answer). */
export const EVENT_ID_HEADER = 'kith-event-id';

// Keys are 43 characters (ours) or 36 (imported Zusam UUIDs); anything far longer is not a key.
const MAX_KEY_LENGTH = 256;

/**
 * Resolves the API key of every API request (docs/api §1.2). Only the `X-AUTH-TOKEN` header is read:
 * no query parameter, no bearer header, no cookie. What a route declares (`auth` in the endpoint
 * table, common/src/api/endpoints.ts) is enforced by http/route.ts for every route: a keyed route
 * without a caller answers 401 before its handler runs; open routes ignore a stale key.
 */
export function registerAuthentication(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('user', null);
  app.decorateRequest('authProblem', 'missing');
  app.decorateRequest('keyHash', null);
  const activity = new ActivityRecorder(ctx.db);
  // Both hooks are synchronous (`done` style) and make a promise only for the work that needs one:
  // Fastify runs an async hook through a promise and a turn of the microtask queue, on every request.
  app.addHook('onRequest', (request, reply, done) => {
    const header = request.headers['x-auth-token'];
    const key = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
    if (key === '') {
      request.authProblem = 'missing';
      done();
      return;
    }
    if (key.length > MAX_KEY_LENGTH) {
      request.authProblem = 'invalid';
      done();
      return;
    }
    // A route that reads the caller in the same statement as its answer (on PostgreSQL, one round
    // trip fewer) gets the key's hash instead, and settles the caller with `callerOfKey`. Reading
    // `routeOptions` took 0.07 µs (a getter that builds an object).
    if (request.routeOptions.config?.readsKey === true) {
      request.keyHash = apiKeyHash(key);
      done();
      return;
    }
    findUserByApiKeyHash(ctx.db.kysely, apiKeyHash(key)).then((user) => {
      settleCaller(request, reply, user, ctx.events.lastId);
      done();
    }, done);
  });

  // On every successful answer to a header-authenticated request: the media cookie (docs/api §1.9),
  // and for writes the caller's activity (§1.11), recorded before the answer leaves so the caller's
  // next request already sees it.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.user === null || reply.statusCode >= 400) {
      done(null, payload);
      return;
    }
    refreshMediaCookie(ctx, request, reply);
    const method = request.method;
    if (
      method === 'GET' ||
      method === 'HEAD' ||
      method === 'OPTIONS' ||
      request.routeOptions.config.readOnly === true
    ) {
      done(null, payload);
      return;
    }
    const userId = request.user.id;
    const now = ctx.clock.now();
    // `lastActivityDate` is in whole seconds: a caller already active this second (as read with
    // their key) has nothing to record. Someone posting many times a second would otherwise write
    // their row at each post, and on PostgreSQL each of those updates would wait for the previous
    // one's lock on the row.
    if (activitySecond(request.user.last_activity_date) >= activitySecond(now)) {
      done(null, payload);
      return;
    }
    // On SQLite it shares the commit of the writes around it; on PostgreSQL it is one statement.
    activity
      .record(userId, now)
      .catch((error: unknown) => request.log.warn({ err: error }, 'could not record user activity'))
      .then(() => done(null, payload), done);
  });
}

/**
 * What the user read with a request's key makes of it: the caller, or why there is none.
 * `lastEventId`: the newest live event before the answer's data was read.
 */
function settleCaller(request: FastifyRequest, reply: FastifyReply, user: UserRow | undefined, lastEventId: number) {
  if (user === undefined) request.authProblem = 'invalid';
  // Read with the key on every request (on SQLite kept only while no commit happened anywhere,
  // db/sqlite-driver.ts ReadMemo): a disabled account is refused at once.
  else if (user.disabled_at !== null) request.authProblem = 'disabled';
  else {
    request.user = user;
    // The newest live event as this read begins (docs/api §11.4): the client compares it with
    // its first stream's, to know whether an event came between what it read and the stream.
    if (request.method === 'GET') void reply.header(EVENT_ID_HEADER, String(lastEventId));
  }
}

/**
 * For a route that reads the caller with its answer (`readsKey`): call it before that read. Its
 * result takes the user read with `request.keyHash` (undefined: no such key) and settles the
 * caller as the hook would have; it answers the caller, or throws the hook's 401.
 */
export function callerOfKey(
  ctx: Pick<AppContext, 'events'>,
  request: FastifyRequest,
  reply: FastifyReply,
): (user: UserRow | undefined) => UserRow {
  // Taken before the read, as the hook takes it before the route's reads.
  const lastEventId = ctx.events.lastId;
  return (user) => {
    settleCaller(request, reply, user, lastEventId);
    if (request.user === null) throw unauthenticated(request);
    return request.user;
  };
}

/**
 * For a `readsKey` route whose request fails before its combined read (a path or body it cannot
 * answer): reads the caller alone and settles it with `accept` (`callerOfKey`), so a key that is
 * not live still answers 401 before the route's own error, as after the hook.
 */
export async function callerAlone(
  db: AppContext['db']['kysely'],
  keyHash: string,
  accept: (user: UserRow | undefined) => UserRow,
): Promise<UserRow> {
  return accept(await findUserByApiKeyHash(db, keyHash));
}
