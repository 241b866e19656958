import { Type, type Static } from 'typebox';
import { ExportObject } from './export-schemas.js';
import { FileObject, MessagePreview, MessageRef, Notification, ReactionUser } from './schemas.js';

/**
 * The live events of `GET /api/events` (docs/api §11.4): each `event:` name with the JSON of its
 * `data:` line. The server writes its frames with these types and the web client reads them with
 * the same ones.
 */

/** A reply's card, with where it hangs in its thread. */
export const CommentEvent = Type.Object({
  ...MessagePreview.properties,
  parent: Type.Union([MessageRef, Type.Null()]),
  lineage: Type.Array(Type.String(), { description: 'ancestor ids, nearest parent first, root last' }),
});

/**
 * A message's reactions changed (issue 20). Sent once to every member, so nothing in it is the
 * receiver's own: each client finds `mine` and its `reactionId` among `users` by its own id.
 */
export const ReactionsEvent = Type.Object({
  messageId: Type.String(),
  groupId: Type.String(),
  /** Its thread's post (itself for a post): the card the change shows on. */
  rootId: Type.String(),
  reactions: Type.Array(
    Type.Object({
      emoji: Type.String(),
      count: Type.Integer(),
      users: Type.Array(Type.Object({ ...ReactionUser.properties, reactionId: Type.String() })),
    }),
  ),
});

export const liveEvents = {
  /** A notification of the caller, as the notifications list shows it. */
  notification: Notification,
  /** A new post, or a reply published to its group page: its card. */
  message: MessagePreview,
  /** A message was pinned or unpinned in its group: its card, with its pin state. */
  pin: MessagePreview,
  /** A new reply. */
  comment: CommentEvent,
  /** A message's reactions changed. */
  reactions: ReactionsEvent,
  /** An upload of the caller changed status or progress. */
  file: FileObject,
  /** An export of the caller became ready (with its download link) or failed (issue 22). */
  export: ExportObject,
  /** Events were missed that cannot be replayed: reload what is shown. */
  resync: Type.Object({}),
  /** This stream was closed for a newer one of the same user; reconnect no sooner than `retry:`. */
  closed: Type.Object({ reason: Type.Literal('too_many_streams') }),
} as const;

export type LiveEventName = keyof typeof liveEvents;
/** The `data` of a live event, by name. */
export type LiveEventData<E extends LiveEventName> = Static<(typeof liveEvents)[E]>;
/** A live event as the client receives it: its name with its data. */
export type LiveEvent = { [E in LiveEventName]: { event: E; data: LiveEventData<E> } }[LiveEventName];
