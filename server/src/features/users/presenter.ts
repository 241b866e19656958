import type { Me, UserRef } from '@kith/common';
import { toSeconds } from '../../lib/clock.js';
import type { UserRow } from '../../db/rows.js';

/** A nested file reference (avatar). */
export interface FileRef {
  id: string;
  entityType: 'file';
}

export function presentAvatar(avatarId: string | null): FileRef | null {
  return avatarId === null ? null : { id: avatarId, entityType: 'file' };
}

/** Someone else's profile (docs/api §2.2): name and avatar only, never the login or settings. */
export function presentUser(user: Pick<UserRow, 'id' | 'name' | 'avatar_id'>): UserRef {
  return { id: user.id, entityType: 'user' as const, name: user.name, avatar: presentAvatar(user.avatar_id) };
}

/** The caller's own user (docs/api §2.1). `data` holds only the keys that were ever set. */
export function presentMe(user: UserRow, groups: { id: string; name: string }[]): Me {
  const data: Me['data'] = {};
  if (user.notification_emails !== null) data.notification_emails = user.notification_emails;
  if (user.default_group_id !== null) data.default_group = user.default_group_id;
  if (user.lang !== null) data.lang = user.lang;
  if (user.theme !== null) data.theme = user.theme;
  if (user.default_page !== null) data.default_page = user.default_page;
  if (user.push_notifications !== null) data.push_notifications = user.push_notifications;
  if (user.quiet_hours !== null) data.quiet_hours = user.quiet_hours;
  if (user.time_zone !== null) data.time_zone = user.time_zone;
  if (user.mention_emails !== null) data.mention_emails = user.mention_emails;
  return {
    id: user.id,
    entityType: 'user' as const,
    name: user.name,
    login: user.login,
    avatar: presentAvatar(user.avatar_id),
    groups: groups.map((g) => ({ id: g.id, entityType: 'group' as const, name: g.name })),
    data,
    createdAt: toSeconds(user.created_at),
    lastActivityDate: toSeconds(user.last_activity_date),
  };
}
