import type { UserRow } from '../users/queries.js';
import type { MessageRow } from './queries.js';

/**
 * Only the author edits, deletes or publishes a message (contract §6.3, §6.4). Placeholders have no
 * author, so nobody can.
 */
export function canEditMessage(
  user: Pick<UserRow, 'id'>,
  message: Pick<MessageRow, 'author_id' | 'is_deleted'>,
): boolean {
  return message.is_deleted === 0 && message.author_id !== null && message.author_id === user.id;
}
