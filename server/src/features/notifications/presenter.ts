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

/** The complete Notification object (docs/api §2.7); lists and the single GET share it. */
export function presentNotification(n: NotificationView): Notification {
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
    type: n.type as NotificationType,
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
    parentAuthorName: n.type === 'new_comment' ? (n.parent_author_name ?? '') : '',
    miniature: fromUser?.avatar ?? null,
  };
}
