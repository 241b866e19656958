import type { UserRow } from '../../db/rows.js';
import type { NotificationView } from './queries.js';

// What a caller may do with a notification (docs/api §1.8): it is visible to its owner only, and
// anyone else gets 404, as for one that does not exist. Lists and "mark all read" select the
// caller's own rows in SQL; the routes on one notification ask these rules.

type Caller = Pick<UserRow, 'id'>;
type Owned = Pick<NotificationView, 'user_id'>;

/** Only the owner reads a notification (§8.2). */
export function canReadNotification(user: Caller, notification: Owned): boolean {
  return notification.user_id === user.id;
}

/** Only the owner marks a notification read or unread (§8.3). */
export function canUpdateNotification(user: Caller, notification: Owned): boolean {
  return notification.user_id === user.id;
}

/** Only the owner deletes a notification (§8.4). */
export function canDeleteNotification(user: Caller, notification: Owned): boolean {
  return notification.user_id === user.id;
}
