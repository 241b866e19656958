/**
 * Which messages count as new, from the notification list (product spec): a notification matches
 * a target id or its own id; a message is new when an unread notification matches it or is a
 * new_comment from that message.
 */

/** The notification fields these rules need. */
export interface NotificationLike {
  id: string;
  type: string;
  read: boolean;
  target: string | null;
  fromMessage: { id: string } | null;
}

/** True when the notification is about `id`, either as its target or as the notification itself. */
export function notificationMatches(n: NotificationLike, id: string): boolean {
  return n.target === id || n.id === id;
}

/** True when an unread notification is about the message, or about a new comment under it. */
export function isMessageNew(list: readonly NotificationLike[], messageId: string): boolean {
  return list.some(
    (n) =>
      !n.read && (notificationMatches(n, messageId) || (n.type === 'new_comment' && n.fromMessage?.id === messageId)),
  );
}

/** Unread notifications matching any of `ids`, to mark read once those items have been seen. */
export function matchingUnread<N extends NotificationLike>(list: readonly N[], ids: readonly string[]): N[] {
  const wanted = new Set(ids);
  return list.filter((n) => !n.read && (wanted.has(n.id) || (n.target !== null && wanted.has(n.target))));
}
