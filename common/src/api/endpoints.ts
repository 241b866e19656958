import { Type, type Static, type TSchema } from 'typebox';
import {
  AllGroupsFeedPage,
  ApiKeyAnswer,
  Bookmark,
  BookmarkBody,
  EmptyAnswer,
  FeedPage,
  FileObject,
  Group,
  GroupNameBody,
  Health,
  GroupPage,
  GroupRef,
  Info,
  InviteKeyAnswer,
  LoginBody,
  Me,
  Message,
  MessageBody,
  MessagePreview,
  NewApiKeyAnswer,
  NewPasswordBody,
  Notification,
  NotificationUpdateBody,
  PublicLinkAnswer,
  ReactionBody,
  ReactionSummaries,
  ReadAllAnswer,
  ReadAllBody,
  Readiness,
  ResetMailBody,
  SignupAnswer,
  SignupBody,
  StopEmailsAnswer,
  UserOrMe,
  UserUpdateBody,
} from './schemas.js';
import { LinkPreview } from './link-schemas.js';
import { PresenceBody, PushSubscription, PushSubscriptionBody, PushSubscriptionList } from './push-schemas.js';
import { SearchAnswer, SearchBody } from './search-schemas.js';
import { ExportList, ExportObject } from './export-schemas.js';
import { StorageUsage } from './storage-schemas.js';

/**
 * The API's one endpoint table: every route the server registers, with what it reads and answers.
 * The server registers its routes from it (`server/src/http/route.ts`), so a route cannot exist
 * outside it, and the web client's calls are typed by it (`web/src/lib/api.ts`), so a wrong path,
 * body or answer type does not compile. The OpenAPI document (docs/api/) is generated from the
 * registered routes, hence from this table.
 */

/** How a route authenticates (docs/api §1.2). */
export type EndpointAuth =
  /** A live `X-AUTH-TOKEN` is required: without one the route answers 401 before its handler runs. */
  | 'key'
  /** Open to anyone; a valid key is still used when sent. */
  | 'anyone'
  /**
   * A key, or a grant the request carries instead (the media cookie, a public-link cookie, a signed
   * URL): the domain's access module decides, and answers 401 as 'key' does when nothing grants.
   */
  | 'grant';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One endpoint: its documentation, who may call it, and its request and answer schemas. */
export interface Endpoint {
  readonly summary: string;
  readonly tag: string;
  readonly auth: EndpointAuth;
  /** The JSON body, documented; services check it (docs/adr/0001-request-validation.md). */
  readonly body?: TSchema;
  /** The query string, documented; services check it. */
  readonly query?: TSchema;
  /** Success answers by status; `null` for an empty answer. */
  readonly response: Readonly<Record<number, TSchema | null>>;
  /** Error statuses this route can answer besides the common ones (401 for keyed routes, 400 with a body, 500). */
  readonly errors?: readonly number[];
  /** A POST that only reads (search): it is no activity of the caller (docs/api §1.11). */
  readonly readOnly?: boolean;
  /** Left out of the OpenAPI document (file bytes under signed URLs). */
  readonly hidden?: boolean;
}

/** The key of an endpoint: its method and path, e.g. `GET /api/groups/{id}`. */
export type EndpointKeyOf<M extends HttpMethod = HttpMethod> = `${M} /${string}`;

const table = <T extends Record<EndpointKeyOf, Endpoint>>(endpoints: T): T => endpoints;

const BookmarksQuery = Type.Object({
  expand: Type.Optional(Type.Literal('message', { description: 'message cards instead of references' })),
});
const StopByToken = {
  tag: 'account',
  auth: 'anyone',
  response: { 200: StopEmailsAnswer },
  errors: [400, 429],
} as const;
const NotificationsQuery = Type.Object({
  include: Type.Optional(
    Type.String({
      description:
        'Kith additions, comma-separated: `reactions` (issue 20) also lists new_reaction notifications; `mentions` (issue 21) shows mention notifications as `mention` (without it, as the new_message or new_comment they replace)',
    }),
  ),
});
const notificationList = {
  summary: 'The caller’s notifications, newest first (default 50, at most 200)',
  tag: 'notifications',
  auth: 'key',
  query: NotificationsQuery,
  response: { 200: Type.Array(Notification) },
} as const;
const bookmarkList = {
  summary: 'The caller’s bookmarks, newest first (default 1000, at most 2000; expand=message for cards)',
  tag: 'bookmarks',
  auth: 'key',
  query: BookmarksQuery,
  response: { 200: Type.Array(Bookmark) },
  errors: [400],
} as const;

export const endpoints = table({
  // Instance (docs/api §3.1)
  'GET /api/info': { summary: 'Instance state', tag: 'instance', auth: 'anyone', response: { 200: Info } },
  // Probes for load balancers and orchestrators (docs/scale-out.md)
  'GET /api/health': {
    summary: 'Liveness: the process answers',
    tag: 'instance',
    auth: 'anyone',
    response: { 200: Health },
    errors: [503],
  },
  'GET /api/health/ready': {
    summary:
      'Readiness: the database, Redis and the bucket (when configured) answer, and the process is not shutting down',
    tag: 'instance',
    auth: 'anyone',
    response: { 200: Readiness },
    errors: [503],
  },

  // Account: login, signup, password reset (docs/api §3.2–3.5)
  'POST /api/login': {
    summary: 'Log in; answers the account API key',
    tag: 'account',
    auth: 'anyone',
    body: LoginBody,
    response: { 200: ApiKeyAnswer },
    errors: [401, 429],
  },
  'POST /api/signup': {
    summary: 'Sign up, or log in, through a group invite key',
    tag: 'account',
    auth: 'anyone',
    body: SignupBody,
    response: { 200: SignupAnswer },
    errors: [401, 429],
  },
  'POST /api/password-reset-mail': {
    summary: 'Send a password reset link (same answer whether or not the account exists)',
    tag: 'account',
    auth: 'anyone',
    body: ResetMailBody,
    response: { 200: EmptyAnswer },
    errors: [429, 503],
  },
  'POST /api/new-password': {
    summary: 'Set a new password with a reset key; answers a new API key',
    tag: 'account',
    auth: 'anyone',
    body: NewPasswordBody,
    response: { 200: ApiKeyAnswer },
    errors: [429],
  },

  // Unsubscribing from digests (docs/api §3.6)
  'GET /api/stop-notification-emails/{userId}/{token}': {
    summary: 'Turn notification e-mails off with the link of a digest',
    ...StopByToken,
  },
  'POST /api/stop-notification-emails/{userId}/{token}': {
    summary: 'One-click unsubscribe (RFC 8058) from a digest’s List-Unsubscribe header',
    ...StopByToken,
  },
  'GET /api/stop-notification-emails': {
    summary: 'Turn the caller’s notification e-mails off',
    tag: 'account',
    auth: 'key',
    response: { 200: StopEmailsAnswer },
  },

  // Users (docs/api §4)
  'GET /api/me': { summary: 'The caller', tag: 'users', auth: 'key', response: { 200: Me } },
  'GET /api/users/{id}': {
    summary: 'A visible user (the caller gets the Me object)',
    tag: 'users',
    auth: 'key',
    response: { 200: UserOrMe },
    errors: [404],
  },
  'PUT /api/users/{id}': {
    summary: 'Change the caller’s profile and settings',
    tag: 'users',
    auth: 'key',
    body: UserUpdateBody,
    response: { 200: Me },
    errors: [403, 409],
  },
  'DELETE /api/users/{id}': {
    summary: 'Delete the caller’s account',
    tag: 'users',
    auth: 'key',
    response: { 204: null },
    errors: [403],
  },
  'POST /api/users/{id}/reset-api-key': {
    summary: 'Replace the caller’s API key; the old one stops working at once',
    tag: 'users',
    auth: 'key',
    response: { 200: NewApiKeyAnswer },
    errors: [403],
  },

  // Groups (docs/api §5)
  'POST /api/groups': {
    summary: 'Create a group; the caller is its first member',
    tag: 'groups',
    auth: 'key',
    body: GroupNameBody,
    response: { 201: Group },
  },
  'GET /api/groups/{id}': {
    summary: 'A group of the caller',
    tag: 'groups',
    auth: 'key',
    response: { 200: Group },
    errors: [404],
  },
  'PUT /api/groups/{id}': {
    summary: 'Rename a group (only name is read)',
    tag: 'groups',
    auth: 'key',
    body: GroupNameBody,
    response: { 200: Group },
    errors: [404],
  },
  'POST /api/groups/{id}/leave': {
    summary: 'Leave a group',
    tag: 'groups',
    auth: 'key',
    response: { 200: GroupRef },
    errors: [404],
  },
  'POST /api/groups/{id}/reset-invite-key': {
    summary: 'Replace the invitation key; the old one stops working at once',
    tag: 'groups',
    auth: 'key',
    response: { 200: InviteKeyAnswer },
    errors: [403, 404],
  },
  'POST /api/groups/invitation/{key}': {
    summary: 'Join a group by its invitation key (a member joining again is a no-op)',
    tag: 'groups',
    auth: 'key',
    response: { 200: GroupRef },
    errors: [400, 429],
  },

  // Group pages and the feed (docs/api §5.4, §5.5, §11.1)
  'GET /api/groups/{id}/page/{page}': {
    summary: 'Ids of a group page (30 front messages, newest activity first)',
    tag: 'messages',
    auth: 'key',
    response: { 200: GroupPage },
    errors: [400, 404],
  },
  'GET /api/groups/{id}/feed': {
    summary: 'A screen of the group page with the cards inline (cursor paging)',
    tag: 'messages',
    auth: 'key',
    query: Type.Object({
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'cards per screen (default 30)' })),
      cursor: Type.Optional(Type.String({ description: 'the nextCursor of the previous screen' })),
    }),
    response: { 200: FeedPage },
    errors: [400, 404],
  },
  'GET /api/groups/{id}/random': {
    summary: 'A random message of the group page (204 when there is none)',
    tag: 'messages',
    auth: 'key',
    response: { 200: Message, 204: null },
    errors: [404],
  },

  // One feed across the caller's groups (docs/api §11.8)
  'GET /api/feed/page/{page}': {
    summary: 'Ids of the front messages of all the caller’s groups, 30 from position {page} (as Zusam 0.6.1)',
    tag: 'messages',
    auth: 'key',
    response: { 200: GroupPage },
    errors: [400],
  },
  'GET /api/feed': {
    summary: 'A screen of the latest activity of all the caller’s groups, cards inline (cursor paging)',
    tag: 'messages',
    auth: 'key',
    query: Type.Object({
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'cards per screen (default 30)' })),
      cursor: Type.Optional(Type.String({ description: 'the nextCursor of the previous screen' })),
    }),
    response: { 200: AllGroupsFeedPage },
    errors: [400],
  },

  // Notifications (docs/api §2.7, §8, §11.2)
  'GET /api/me/notifications': notificationList,
  'GET /api/me/notifications/{limit}': notificationList,
  'POST /api/me/notifications/read-all': {
    summary: 'Mark the caller’s notifications read, up to `before` (default now)',
    tag: 'notifications',
    auth: 'key',
    body: ReadAllBody,
    response: { 200: ReadAllAnswer },
  },
  'GET /api/notifications/{id}': {
    summary: 'One notification',
    tag: 'notifications',
    auth: 'key',
    query: NotificationsQuery,
    response: { 200: Notification },
    errors: [404],
  },
  'PUT /api/notifications/{id}': {
    summary: 'Mark a notification read or unread',
    tag: 'notifications',
    auth: 'key',
    query: NotificationsQuery,
    body: NotificationUpdateBody,
    response: { 200: Notification },
    errors: [404],
  },
  'DELETE /api/notifications/{id}': {
    summary: 'Delete a notification',
    tag: 'notifications',
    auth: 'key',
    response: { 204: null },
    errors: [404],
  },

  // Messages and public links (docs/api §6, §11.3)
  'POST /api/messages': {
    summary: 'Post a message, or reply to one',
    tag: 'messages',
    auth: 'key',
    body: MessageBody,
    response: { 201: Message },
    errors: [404],
  },
  'GET /api/messages/{id}': {
    summary: 'A message',
    tag: 'messages',
    auth: 'key',
    response: { 200: Message },
    errors: [404],
  },
  'PUT /api/messages/{id}': {
    summary: 'Edit a message (data, files), publish a reply (isInFront) or pin it in its group (pinnedInGroup)',
    tag: 'messages',
    auth: 'key',
    body: MessageBody,
    response: { 200: Message },
    errors: [403, 404, 409],
  },
  'DELETE /api/messages/{id}': {
    summary: 'Delete a message (a post with its thread; a reply with replies becomes a placeholder)',
    tag: 'messages',
    auth: 'key',
    response: { 204: null },
    errors: [403, 404],
  },
  'GET /api/messages/{id}/preview': {
    summary: 'A message card',
    tag: 'messages',
    auth: 'key',
    response: { 200: MessagePreview },
    errors: [404],
  },
  'GET /api/messages/{id}/get-public-link': {
    summary: 'The public link of a message (made on the first call)',
    tag: 'messages',
    auth: 'key',
    response: { 200: PublicLinkAnswer },
    errors: [403, 404],
  },
  'DELETE /api/messages/{id}/public-link': {
    summary: 'End the public link of a message',
    tag: 'messages',
    auth: 'key',
    response: { 204: null },
    errors: [404],
  },
  'GET /api/public/{token}': {
    summary: 'The read-only message behind a public link',
    tag: 'messages',
    auth: 'anyone',
    response: { 200: Message },
    errors: [404],
  },
  'POST /api/messages/search': {
    summary: 'Search the messages of a group: every term must match; ranked, with snippets',
    tag: 'messages',
    auth: 'key',
    readOnly: true,
    body: SearchBody,
    response: { 200: SearchAnswer },
    // 503: the search worker is busy, gave up on the search or died (server/src/features/search/threads.ts).
    errors: [404, 503],
  },

  // Reactions (Kith addition, issue 20; Zusam 0.6.1's paths)
  'POST /api/messages/{id}/reactions': {
    summary: 'React to a message with one emoji (already used: unchanged); answers its reactions',
    tag: 'reactions',
    auth: 'key',
    body: ReactionBody,
    response: { 200: ReactionSummaries },
    errors: [403, 404],
  },
  'GET /api/messages/{id}/reactions': {
    summary: 'A message’s reactions by emoji',
    tag: 'reactions',
    auth: 'key',
    response: { 200: ReactionSummaries },
    errors: [404],
  },
  'DELETE /api/messages/{id}/reactions/{reactionId}': {
    summary: 'Take back one of the caller’s reactions; answers the message’s reactions',
    tag: 'reactions',
    auth: 'key',
    response: { 200: ReactionSummaries },
    errors: [403, 404],
  },

  // Bookmarks (docs/api §9)
  'POST /api/bookmarks': {
    summary: 'Bookmark a message (200 with the existing bookmark when already bookmarked)',
    tag: 'bookmarks',
    auth: 'key',
    body: BookmarkBody,
    response: { 200: Bookmark, 201: Bookmark },
    errors: [404],
  },
  'DELETE /api/bookmarks/{id}': {
    summary: 'Remove a bookmark',
    tag: 'bookmarks',
    auth: 'key',
    response: { 204: null },
    errors: [404],
  },
  'GET /api/me/bookmarks': bookmarkList,
  'GET /api/me/bookmarks/{limit}': bookmarkList,

  // Files (docs/api §7)
  'POST /api/files': {
    summary: 'Upload a file (multipart/form-data, one part named file)',
    tag: 'files',
    auth: 'key',
    response: { 201: FileObject },
    errors: [400, 403, 413, 415, 429],
  },
  'GET /api/files/{id}': {
    summary: 'A file, with a freshly signed contentUrl (key, or a kith_public grant)',
    tag: 'files',
    auth: 'grant',
    response: { 200: FileObject },
    errors: [404],
  },
  'GET /api/images/{type}/{w}/{h}/{id}': {
    summary:
      'A thumbnail or crop of a file (key, the kith_media cookie, a kith_public grant, or the signed exp and sig of a digest e-mail)',
    tag: 'files',
    auth: 'grant',
    query: Type.Object({ exp: Type.Optional(Type.String()), sig: Type.Optional(Type.String()) }),
    response: { 200: Type.Any({ description: 'image/jpeg or image/webp' }), 304: null },
    errors: [400, 404],
  },
  'GET /files/{name}': {
    summary: 'The bytes of a file under its signed name (the contentUrl of a File object)',
    tag: 'files',
    auth: 'anyone',
    hidden: true,
    query: Type.Object({ exp: Type.Optional(Type.String()), sig: Type.Optional(Type.String()) }),
    response: { 200: Type.Any(), 206: Type.Any() },
    errors: [403, 404, 416],
  },

  // Link previews (docs/api §2.9, §7.5)
  'GET /api/links/by_url': {
    summary:
      'Preview of a web page: title, description, embed code (cached 7 days, 1 hour after a failure); key, or a kith_public grant',
    tag: 'links',
    auth: 'grant',
    query: Type.Object({
      url: Type.String({ description: 'the page URL, percent-encoded once; http(s), at most 2048 characters' }),
    }),
    response: { 200: LinkPreview },
    errors: [400, 401, 429],
  },

  // Web Push (Kith addition, issue 21, docs/api §11.9)
  'GET /api/me/push-subscriptions': {
    summary: 'The caller’s devices that receive pushes, with the VAPID public key to add one',
    tag: 'push',
    auth: 'key',
    response: { 200: PushSubscriptionList },
    errors: [],
  },
  'POST /api/me/push-subscriptions': {
    summary: 'Add this device (its push subscription); an endpoint already known is updated and moves to the caller',
    tag: 'push',
    auth: 'key',
    body: PushSubscriptionBody,
    response: { 201: PushSubscription, 200: PushSubscription },
    errors: [400, 403, 409],
  },
  'DELETE /api/me/push-subscriptions/{id}': {
    summary: 'Remove one of the caller’s devices',
    tag: 'push',
    auth: 'key',
    response: { 204: null },
    errors: [404],
  },
  'PUT /api/me/presence': {
    summary: 'Report whether Kith is in front of the caller on this browser (no pushes while it is)',
    tag: 'push',
    auth: 'key',
    body: PresenceBody,
    response: { 204: null },
    errors: [400],
  },

  // Exports (Kith addition, issue 22, docs/api §11.12)
  'GET /api/me/exports': {
    summary: 'The caller’s exports (building, ready with a download link, failed), newest first',
    tag: 'exports',
    auth: 'key',
    response: { 200: ExportList },
    errors: [],
  },
  'POST /api/me/exports': {
    summary: 'Start an export of everything the caller wrote (one building at a time, one per hour)',
    tag: 'exports',
    auth: 'key',
    response: { 202: ExportObject },
    errors: [409, 429],
  },
  'GET /api/me/exports/{id}/download': {
    summary: 'The zip of a ready export: the owner’s key, or the signed downloadUrl (others 404)',
    tag: 'exports',
    auth: 'grant',
    query: Type.Object({
      exp: Type.Optional(Type.String({ description: 'expiry of the signed link (Unix seconds)' })),
      sig: Type.Optional(Type.String({ description: 'signature of the signed link' })),
    }),
    response: {
      200: Type.Unsafe<string>({
        description: 'the zip, streamed (application/zip, as an attachment)',
        content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
      }),
    },
    errors: [403, 404],
  },
  // Storage quotas (Kith addition, issue 22, docs/api §7.6)
  'GET /api/me/storage': {
    summary: 'How many bytes of stored uploads the caller holds, their limit and what they may still upload',
    tag: 'files',
    auth: 'key',
    response: { 200: StorageUsage },
    errors: [],
  },

  // Live events (docs/api §11.4)
  'GET /api/events': {
    summary: 'Live events (Server-Sent Events): notifications, posts, comments, file changes',
    tag: 'events',
    auth: 'key',
    query: Type.Object({
      device: Type.Optional(
        Type.String({
          description:
            'the browser’s presence id (`PUT /api/me/presence`, 1 to 64 of [A-Za-z0-9_-]): when its last open stream closes, the server forgets that the browser had Kith in front',
        }),
      ),
    }),
    response: {
      200: Type.Unsafe<string>({
        description:
          'A text/event-stream. Starts with `retry: 5000`, then frames `id`, `event` (notification, message, comment, file, resync) and one-line JSON `data`; `: ping` every 25 s. Send `Last-Event-ID` to get what was missed. A user has at most 5 open streams: opening a sixth closes the oldest, which first receives `retry: 60000` and `event: closed` with `{"reason":"too_many_streams"}` (reconnect no sooner). Opening is throttled at 120 per user per 10 minutes (429 with `Retry-After`), which only a reconnection loop reaches.',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      }),
    },
    errors: [400, 429],
  },
});

export type Endpoints = typeof endpoints;
export type EndpointKey = keyof Endpoints;

/** The endpoints of one method, e.g. `EndpointOf<'GET'>`. */
export type EndpointOf<M extends HttpMethod> = Extract<EndpointKey, `${M} ${string}`>;

type PathOf<K> = K extends `${HttpMethod} ${infer P}` ? P : never;
type ParamNames<P> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;

/** The path parameters of an endpoint, by name (`{ id: string }` for `GET /api/groups/{id}`). */
export type EndpointParams<K extends EndpointKey> = { [N in ParamNames<PathOf<K>>]: string };

/** The JSON body an endpoint reads, or `undefined` when it reads none. */
export type EndpointBody<K extends EndpointKey> = Endpoints[K] extends { body: infer B extends TSchema }
  ? Static<B>
  : undefined;

/** The query string an endpoint reads, or `undefined` when it reads none. */
export type EndpointQuery<K extends EndpointKey> = Endpoints[K] extends { query: infer Q extends TSchema }
  ? Static<Q>
  : undefined;

type Answers<R> = { [S in keyof R]: R[S] extends TSchema ? Static<R[S]> : undefined }[keyof R];

/** What an endpoint answers on success (`undefined` for an empty answer). */
export type EndpointAnswer<K extends EndpointKey> = Answers<Endpoints[K]['response']>;

/** The authentication an endpoint declares. */
export type EndpointAuthOf<K extends EndpointKey> = Endpoints[K]['auth'];
