import type { Notification, NotificationType } from '@kith/common';
import { toSeconds } from '../../lib/clock.js';
import { presentAvatar } from '../users/presenter.js';
import type { NotificationView } from './queries.js';

/** The stored `data` object; its values are strings (group names, announcement text). */
function parseData(raw: string): Record<string, string> {
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    return Object.fromEntries(
      Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  } catch {
    return {};
  }
}

/** The Kith additions a client asked for with `?include=` (docs/api §11.2, §11.10). */
export interface NotificationIncludes {
  reactions: boolean;
  mentions: boolean;
}

/** Everything: what the live stream sends (only Kith's client reads it). */
export const ALL_INCLUDES: NotificationIncludes = { reactions: true, mentions: true };

/** Reads `?include=reactions,mentions` (any order; unknown words ignored). */
export function parseIncludes(raw: unknown): NotificationIncludes {
  const words = typeof raw === 'string' ? raw.split(',').map((w) => w.trim()) : [];
  return { reactions: words.includes('reactions'), mentions: words.includes('mentions') };
}

/**
 * The type a client is shown (docs/api §11.10): a `mention` is presented to a client that did not
 * ask for mentions (the Zusam 0.5.6 client) as what it replaced, `new_comment` for a mention in a
 * reply (its fromMessage is the parent, not the target) or `new_message` for one in a post, which
 * that client renders as "X commented on / posted in …" and opens at the message.
 */
function shownType(n: NotificationView, include: NotificationIncludes): NotificationType {
  if (n.type !== 'mention' || include.mentions) return n.type as NotificationType;
  return n.from_message_id !== null && n.from_message_id !== n.target ? 'new_comment' : 'new_message';
}

/** The complete Notification object (docs/api §2.7); lists and the single GET share it. */
export function presentNotification(n: NotificationView, include: NotificationIncludes): Notification {
  const type = shownType(n, include);
  const inReply = n.from_message_id !== null && n.from_message_id !== n.target;
  // A deleted author leaves `from_user_id` null (the foreign key sets it), and the join finds nothing.
  const fromUser =
    n.from_user_id !== null && n.from_user_name !== null
      ? {
          id: n.from_user_id,
          entityType: 'user' as const,
          name: n.from_user_name,
          avatar: presentAvatar(n.from_user_avatar_id),
        }
      : null;
  return {
    id: n.id,
    entityType: 'notification' as const,
    type,
    createdAt: toSeconds(n.created_at),
    read: n.read === 1,
    target: n.target,
    data: parseData(n.data),
    fromUser,
    fromGroup:
      n.from_group_id !== null && n.from_group_name !== null
        ? { id: n.from_group_id, entityType: 'group' as const, name: n.from_group_name }
        : null,
    fromMessage: n.from_message_id !== null ? { id: n.from_message_id, entityType: 'message' as const } : null,
    title: n.title,
    parentAuthorName: type === 'new_comment' || (type === 'mention' && inReply) ? (n.parent_author_name ?? '') : '',
    miniature: fromUser?.avatar ?? null,
  };
}
