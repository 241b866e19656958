/**
 * Live events (docs/api §11.4) are published after commit through an `EventBus`: in memory in
 * embedded mode, a Redis stream shared by every process in scale-out mode. Events name what
 * changed; the stream layer loads, checks access (membership at send time) and presents them for
 * each subscriber.
 */
export type KithEvent =
  /** A notification was created for `userId`. */
  | { type: 'notification'; userId: string; notificationId: string }
  /** A post was created in `groupId`, or a reply was published to its group page. */
  | { type: 'message'; groupId: string; messageId: string }
  /** A message of `groupId` was pinned or unpinned. */
  | { type: 'pin'; groupId: string; messageId: string }
  /** A reply was created in `groupId`. */
  | { type: 'comment'; groupId: string; messageId: string }
  /** The reactions of message `messageId` of `groupId` changed (issue 20). */
  | { type: 'reactions'; groupId: string; messageId: string }
  /** A file uploaded by `userId` changed status or progress. */
  | { type: 'file'; userId: string; fileId: string }
  /** An export of `userId` became ready or failed (issue 22). */
  | { type: 'export'; userId: string; exportId: string }
  /** The streams of `userId` must end (key reset, account deleted). */
  | { type: 'disconnect'; userId: string };

/** An event as the bus published it: its id and when it was published (ms, the app's clock). */
export interface PublishedEvent {
  /**
   * Grows with every event of the instance (the SSE `id`, which clients send back as
   * `Last-Event-ID`). A safe integer: milliseconds times 1000 plus a counter.
   */
  id: number;
  time: number;
  event: KithEvent;
}

export interface ReplayLimits {
  /** How many recent events are kept for replay (docs/api §11.4: 1000). */
  maxEvents: number;
  /** How old the first missed event may be (docs/api §11.4: 5 minutes). */
  maxAgeMs: number;
}

export const REPLAY_LIMITS: ReplayLimits = { maxEvents: 1000, maxAgeMs: 5 * 60_000 };

export type EventListener = (event: KithEvent, published: PublishedEvent) => void;

export interface EventBus {
  /** Publishes after commit; never throws into the caller. */
  publish(event: KithEvent): void;
  /**
   * Listens to every event of the instance (of every process sharing the bus), once each, in id
   * order; returns a function that stops listening. Listeners should only note the event and go on.
   */
  subscribe(listener: EventListener): () => void;
  /** The id of the newest event handed to this process's listeners (or the starting point). */
  readonly lastId: number;
  /**
   * The events published after `lastId`, oldest first, or `null` when they cannot all be given:
   * the first missed one is no longer kept (more than `maxEvents` since, or older than `maxAgeMs`),
   * or `lastId` was never handed out. The caller then sends `resync`. Events this process published
   * before the call are included.
   */
  since(lastId: number): Promise<PublishedEvent[] | null>;
  /** Stops listening and gives the events still waiting to be published a moment to leave. */
  close(): Promise<void>;
}
