import type { UserRow } from '../../db/rows.js';

/**
 * Who may act on a user (docs/api §4.3–4.5): only the user themself. Other ids answer 403 whether
 * or not they exist, which reveals nothing.
 */
export function canEditUser(caller: Pick<UserRow, 'id'>, targetId: string | null): boolean {
  return targetId !== null && caller.id === targetId;
}
