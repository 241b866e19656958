import { Type, type Static, type TSchema } from 'typebox';
import {
  DEFAULT_PAGES,
  MENTION_EMAIL_CHOICES,
  NOTIFICATION_EMAIL_FREQUENCIES,
  NOTIFICATION_TYPES,
  PUSH_CHOICES,
  THEMES,
} from '../enums.js';
import { ERROR_CODES } from '../errors.js';

/**
 * The API's objects as JSON Schema (TypeBox), shared by the server and the web client. The server
 * serializes its answers with them and builds the OpenAPI document from them; presenters are typed
 * with `Static<…>`, so the code and the contract cannot drift apart. Sections (§) are those of docs/api/README.md.
 */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Id = Type.String({ description: 'lowercase UUID v4' });
const Seconds = Type.Integer({ description: 'Unix time in seconds' });

/** A nested file reference (§1.4). */
export const FileRef = Type.Object({ id: Id, entityType: Type.Literal('file') });
export type FileRef = Static<typeof FileRef>;

/** A nested user with the display fields Kith adds (§2.2, §11.6). */
export const UserRef = Type.Object({
  id: Id,
  entityType: Type.Literal('user'),
  name: Type.String(),
  avatar: Nullable(FileRef),
});
export type UserRef = Static<typeof UserRef>;

/** A nested group with its name. */
export const GroupRef = Type.Object({ id: Id, entityType: Type.Literal('group'), name: Type.String() });
export type GroupRef = Static<typeof GroupRef>;

/** The caller's own user (§2.1). */
export const Me = Type.Object({
  id: Id,
  entityType: Type.Literal('user'),
  name: Type.String(),
  login: Type.String(),
  avatar: Nullable(FileRef),
  groups: Type.Array(GroupRef, { description: 'in the order they were joined, oldest first' }),
  data: Type.Object(
    {
      notification_emails: Type.Optional(Type.String()),
      default_group: Type.Optional(Id),
      lang: Type.Optional(Type.String()),
      theme: Type.Optional(Type.String({ description: 'system, light or dark (Kith addition)' })),
      default_page: Type.Optional(
        Type.String({ description: 'default_group or feed: the page the client opens first (as Zusam 0.6.1)' }),
      ),
      push_notifications: Type.Optional(
        Type.String({ description: 'all, mentions_replies or none: what Web Push sends (Kith addition, §11.9)' }),
      ),
      quiet_hours: Type.Optional(
        Type.String({ description: '"HH:MM-HH:MM" in time_zone, no pushes then; "" for none (Kith addition, §11.9)' }),
      ),
      time_zone: Type.Optional(
        Type.String({ description: 'IANA time zone, e.g. Europe/Paris (Kith addition, §11.9)' }),
      ),
      mention_emails: Type.Optional(
        Type.String({
          description: 'with_others, immediately or none: how mentions are mailed (Kith addition, §11.10)',
        }),
      ),
    },
    { description: 'only the keys that were ever set' },
  ),
  createdAt: Seconds,
  lastActivityDate: Seconds,
});
export type Me = Static<typeof Me>;

/** Someone else's profile (§2.2), or the caller's own (then the Me object). */
export const UserOrMe = Type.Union([Me, UserRef]);

/** A group (§2.3); `secretKey` is the invitation key. */
export const Group = Type.Object({
  id: Id,
  entityType: Type.Literal('group'),
  name: Type.String(),
  createdAt: Seconds,
  lastActivityDate: Seconds,
  secretKey: Type.Optional(Type.String({ description: 'left out when the instance hides invitation links' })),
  users: Type.Array(UserRef, { description: 'members in the order they joined' }),
});
export type Group = Static<typeof Group>;

/** A notification (§2.7), complete in lists too. */
export const Notification = Type.Object({
  id: Id,
  entityType: Type.Literal('notification'),
  type: Type.Enum(NOTIFICATION_TYPES),
  createdAt: Seconds,
  read: Type.Boolean(),
  target: Type.String(),
  data: Type.Record(Type.String(), Type.String()),
  fromUser: Nullable(UserRef),
  fromGroup: Nullable(GroupRef),
  fromMessage: Nullable(Type.Object({ id: Id, entityType: Type.Literal('message') })),
  title: Type.String(),
  parentAuthorName: Type.String(),
  miniature: Nullable(FileRef),
});
export type Notification = Static<typeof Notification>;

const Flags = <K extends string>(keys: readonly K[]) =>
  Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Boolean()])) as Record<K, ReturnType<typeof Type.Boolean>>);
const Sizes = <K extends string>(keys: readonly K[]) =>
  Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Integer()])) as Record<K, ReturnType<typeof Type.Integer>>);
const UPLOAD_KEYS = ['image', 'video', 'pdf', 'audio'] as const;

/** The instance state (§3.1). */
/** GET /api/health: the process answers. */
export const Health = Type.Object({ status: Type.Literal('ok') });

/** GET /api/health/ready: the stores this process needs answer. */
export const Readiness = Type.Object({
  status: Type.Literal('ready'),
  checks: Type.Object({
    database: Type.Literal('ok'),
    /** Present when the instance shares a Redis (REDIS_URL). */
    redis: Type.Optional(Type.Literal('ok')),
    /** Present when files are in an S3 bucket (S3_BUCKET): the bucket answers. */
    bucket: Type.Optional(Type.Literal('ok')),
  }),
});

export const Info = Type.Object({
  version: Type.String(),
  compat: Type.String(),
  upload: Flags(UPLOAD_KEYS),
  default_lang: Type.String(),
  allow_email: Type.Boolean(),
  show: Flags(['group_invitation_links', 'public_links', 'link_previews'] as const),
  reactions: Type.Boolean({
    description: 'Kith addition (issue 20): members may react with an emoji (REACTIONS_ENABLED)',
  }),
  push: Type.Optional(
    Type.Boolean({ description: 'Kith addition (issue 21): the server sends Web Push notifications (PUSH_ENABLED)' }),
  ),
  limits: Type.Object({
    text: Type.Integer(),
    title: Type.Integer(),
    name: Type.Integer(),
    passwordMin: Type.Integer(),
    passwordMax: Type.Integer(),
    filesPerMessage: Type.Integer(),
    uploadBytes: Sizes(UPLOAD_KEYS),
  }),
});
export type Info = Static<typeof Info>;

/** Answers of the account endpoints (§3.2, §3.3, §3.5, §4.5, §5.7, §11.2). */
export const ApiKeyAnswer = Type.Object({ api_key: Type.String() });
export const SignupAnswer = Type.Object({ api_key: Type.String(), group: Id });
export const NewApiKeyAnswer = Type.Object({ apiKey: Type.String() });
export const InviteKeyAnswer = Type.Object({ inviteKey: Type.String() });
export const ReadAllAnswer = Type.Object({ updated: Type.Integer() });
export const EmptyAnswer = Type.Object({});
/** §3.6: the user whose notification e-mails were turned off. */
export const StopEmailsAnswer = Type.Object({
  id: Id,
  data: Type.Object({ notification_emails: Type.Literal('none') }),
});

/** The error envelope of every failed call (§1.5). */
export const ErrorBody = Type.Object({
  code: Type.Enum(ERROR_CODES),
  message: Type.String(),
  error: Type.String({ description: 'the same text as message' }),
  field: Type.Optional(Type.String({ description: 'dotted path of the request field at fault' })),
});

/** A file object (§2.6). */
export const FileObject = Type.Object({
  id: Id,
  entityType: Type.Literal('file'),
  createdAt: Seconds,
  type: Type.String({ description: 'MIME type detected from the bytes' }),
  status: Type.Union([Type.Literal('raw'), Type.Literal('ready')]),
  contentUrl: Type.String({ description: 'signed name to append to /files/' }),
  size: Type.Integer(),
  fileIndex: Type.Integer(),
  name: Type.String(),
  progress: Nullable(Type.Integer()),
  error: Nullable(
    Type.String({
      description: 'Kith addition: why converting this video or audio failed (the original is kept, status ready)',
    }),
  ),
});
export type FileObject = Static<typeof FileObject>;

/** A nested message reference. */
export const MessageRef = Type.Object({ id: Id, entityType: Type.Literal('message') });
export type MessageRef = Static<typeof MessageRef>;
const MessageData = Type.Object(
  {
    title: Type.Optional(Type.String()),
    text: Type.Optional(Type.String()),
    no_embed: Type.Optional(Type.Boolean()),
  },
  { description: 'keys that were never set are missing; {} on placeholders' },
);

/** Who used one emoji on a message (issue 20): names for the hover or long-press list. */
export const ReactionUser = Type.Object({ id: Id, name: Type.String() });
export type ReactionUser = Static<typeof ReactionUser>;

/** One emoji of a message's reactions as the caller sees it (Kith addition, issue 20). */
export const ReactionSummary = Type.Object({
  emoji: Type.String({ description: 'one emoji (one grapheme)' }),
  count: Type.Integer({ description: 'how many people used it' }),
  mine: Type.Boolean({ description: 'the caller used it' }),
  reactionId: Nullable(
    Type.String({ description: 'the caller’s reaction with this emoji, to remove it; null when not mine' }),
  ),
  users: Type.Array(ReactionUser, { description: 'who used it, first first; empty on the public view' }),
});
export type ReactionSummary = Static<typeof ReactionSummary>;
export const ReactionSummaries = Type.Array(ReactionSummary, {
  description:
    'Kith addition (issue 20): the message’s reactions by emoji, in the order first used; [] when reactions are off',
});

/** One person a message @mentions (Kith addition, issue 21, §11.10). */
export const Mention = Type.Object({
  id: Id,
  name: Type.String({ description: 'their current name, which the client shows' }),
  written: Type.String({ description: 'the name as written in the text after `@`, which the client replaces' }),
});
export type Mention = Static<typeof Mention>;
export const Mentions = Type.Array(Mention, {
  description: 'Kith addition (issue 21): the members this message @mentions, in the order first written; [] when none',
});

/** POST /api/messages/{id}/reactions. */
export const ReactionBody = Type.Object({ reaction: Type.String({ description: 'one emoji' }) });

/** What a message and its card share. */
const MessageCommon = {
  id: Id,
  entityType: Type.Literal('message'),
  type: Type.Literal('standard'),
  createdAt: Seconds,
  lastActivityDate: Seconds,
  data: MessageData,
  author: Nullable(UserRef),
  preview: Nullable(FileObject),
  isInFront: Type.Boolean(),
  isDeleted: Type.Boolean(),
  pinnedInGroup: Type.Boolean({
    description: 'Kith addition: pinned at the top of its group page and feed (PUT with pinnedInGroup)',
  }),
  sortOrder: Type.Optional(
    Type.Integer({
      description: 'only on a pinned message (as Zusam 0.6.1): its place among the pinned ones, smaller first',
    }),
  ),
  reactions: ReactionSummaries,
  mentions: Mentions,
};

/** What the caller may do with a message (Kith addition to §2.4). */
export const MessageAbilities = Type.Object(
  {
    edit: Type.Boolean({ description: 'change data and files (PUT /api/messages/{id})' }),
    delete: Type.Boolean({ description: 'DELETE /api/messages/{id}' }),
    publish: Type.Boolean({ description: 'show this reply on the group page (PUT with isInFront true)' }),
    pin: Type.Boolean({
      description:
        'pin or unpin it in its group (PUT with only pinnedInGroup): any member, for a message on the group page',
    }),
  },
  {
    description:
      'Kith addition: what the caller may do with this message, so clients need not re-derive the rules; all false on the public view',
  },
);
export type MessageAbilities = Static<typeof MessageAbilities>;

/** A message (§2.4). */
export const Message = Type.Object({
  ...MessageCommon,
  group: Nullable(GroupRef),
  parent: Nullable(MessageRef),
  lineage: Type.Array(Id, { description: 'ancestor ids, nearest parent first, root last' }),
  children: Type.Array(MessageRef, { description: 'direct replies, oldest first' }),
  files: Type.Array(FileObject),
  isPublic: Type.Boolean(),
  can: MessageAbilities,
});
export type Message = Static<typeof Message>;

/** A message card (§2.5): `children` is a count. */
export const MessagePreview = Type.Object({
  ...MessageCommon,
  group: GroupRef,
  children: Type.Integer(),
});
export type MessagePreview = Static<typeof MessagePreview>;

/** A card of the batched feed (§11.1). */
export const FeedItem = Type.Object({
  ...MessagePreview.properties,
  truncated: Type.Boolean({ description: 'data.text was cut to 1000 characters' }),
  unread: Type.Boolean({ description: 'an unread new_message or new_comment notification is about this thread' }),
});
export type FeedItem = Static<typeof FeedItem>;

/** GET /api/groups/{id}/feed (§11.1). */
export const FeedPage = Type.Object({
  messages: Type.Array(FeedItem),
  totalItems: Type.Integer(),
  nextCursor: Nullable(Type.String()),
});

/** GET /api/feed (§11.8): the cards of all the caller's groups; each card names its `group`. */
export const AllGroupsFeedPage = Type.Object({
  messages: Type.Array(FeedItem),
  totalItems: Type.Integer({ description: "front messages of all the caller's groups" }),
  nextCursor: Nullable(Type.String()),
});

/** GET /api/groups/{id}/page/{page} (§5.4). */
export const GroupPage = Type.Object({ messages: Type.Array(Id), totalItems: Type.Integer() });

/** A bookmark (§2.8); with `?expand=message` the message is a preview. */
export const Bookmark = Type.Object({
  id: Id,
  entityType: Type.Literal('bookmark'),
  createdAt: Seconds,
  user: Type.Object({ id: Id, entityType: Type.Literal('user') }),
  message: Type.Union([MessagePreview, MessageRef]),
});
export type Bookmark = Static<typeof Bookmark>;

/** GET /api/messages/{id}/get-public-link (§6.6). */
export const PublicLinkAnswer = Type.Object({ token: Type.String(), url: Type.String() });

// Request bodies. They document the API; the services check them with the contract's codes and
// order of checks (docs/adr/0001-request-validation.md). Unknown fields are always allowed.
const IdOrRef = Type.Union([Id, Type.Object({ id: Id })]);

export const LoginBody = Type.Object({ login: Type.String(), password: Type.String() });
export const SignupBody = Type.Object({
  login: Type.String(),
  password: Type.String(),
  invite_key: Type.String(),
  name: Type.Optional(
    Type.String({
      description: "the new account's name (Kith addition); absent or blank: the part of the login before @",
    }),
  ),
});
export const ResetMailBody = Type.Object({ mail: Type.String() });
export const NewPasswordBody = Type.Object({ mail: Type.String(), key: Type.String(), password: Type.String() });
export const UserUpdateBody = Type.Object({
  name: Type.Optional(Type.String()),
  login: Type.Optional(Type.String()),
  password: Type.Optional(Type.String({ description: '"" means unchanged' })),
  avatar: Type.Optional(Nullable(IdOrRef)),
  data: Type.Optional(
    Type.Object({
      notification_emails: Type.Optional(Type.Enum(NOTIFICATION_EMAIL_FREQUENCIES)),
      default_group: Type.Optional(Nullable(Type.Union([IdOrRef, Type.Literal('')]))),
      lang: Type.Optional(Type.String()),
      theme: Type.Optional(Type.Enum(THEMES)),
      default_page: Type.Optional(Type.Enum(DEFAULT_PAGES)),
      push_notifications: Type.Optional(Type.Enum(PUSH_CHOICES)),
      quiet_hours: Type.Optional(
        Type.String({ description: '"HH:MM-HH:MM" (24-hour clock, may span midnight) or ""' }),
      ),
      time_zone: Type.Optional(Type.String({ description: 'an IANA time zone name' })),
      mention_emails: Type.Optional(Type.Enum(MENTION_EMAIL_CHOICES)),
    }),
  ),
});
export const GroupNameBody = Type.Object({ name: Type.String() });
export const NotificationUpdateBody = Type.Object({ read: Type.Boolean() });
export const ReadAllBody = Type.Object({ before: Type.Optional(Seconds) });
export const MessageBody = Type.Object({
  group: Type.Optional(IdOrRef),
  parent: Type.Optional(Nullable(IdOrRef)),
  data: Type.Optional(MessageData),
  files: Type.Optional(Type.Array(IdOrRef)),
  isInFront: Type.Optional(Type.Boolean({ description: 'true publishes a reply in the group (PUT only)' })),
  pinnedInGroup: Type.Optional(
    Type.Boolean({
      description:
        'PUT only: true pins a message of the group page at the top (after those pinned before), false unpins it; any member may send it alone',
    }),
  ),
  mentions: Type.Optional(
    Type.Array(Id, {
      maxItems: 50,
      description:
        'Kith addition (§11.10): ids of the members the text @mentions; kept when `@<their name>` is in the text. PUT without it keeps the stored mentions still written',
    }),
  ),
});
export const BookmarkBody = Type.Object({ message_id: IdOrRef });
