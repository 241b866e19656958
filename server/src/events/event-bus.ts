/**
 * Live events (docs/api §11.4) are published after commit through an `EventBus`: in memory in
 * embedded mode, Redis pub/sub in scale-out mode. Events name what changed; the stream layer loads,
 * checks access (membership at send time) and presents them for each subscriber.
 */
export type KithEvent =
  /** A notification was created for `userId`. */
  | { type: 'notification'; userId: string; notificationId: string }
  /** A post was created in `groupId`, or a reply was published to its group page. */
  | { type: 'message'; groupId: string; messageId: string }
  /** A reply was created in `groupId`. */
  | { type: 'comment'; groupId: string; messageId: string }
  /** A file uploaded by `userId` changed status or progress. */
  | { type: 'file'; userId: string; fileId: string }
  /** The streams of `userId` must end (key reset, account deleted). */
  | { type: 'disconnect'; userId: string };

export interface EventBus {
  /** Publishes after commit; never throws into the caller. */
  publish(event: KithEvent): void;
}
