/** How often a user wants notification digests by e-mail (contract §10.8). */
export const NOTIFICATION_EMAIL_FREQUENCIES = ['none', 'hourly', 'daily', 'weekly', 'monthly'] as const;
export type NotificationEmailFrequency = (typeof NOTIFICATION_EMAIL_FREQUENCIES)[number];

/** Notification types (contract §2.7). */
export const NOTIFICATION_TYPES = [
  'new_message',
  'new_comment',
  'user_joined_group',
  'user_left_group',
  'group_name_change',
  'global_notification',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** Upload kinds an instance can enable (contract §3.1, §7.1). */
export const UPLOAD_KINDS = ['image', 'video', 'audio', 'pdf'] as const;
export type UploadKind = (typeof UPLOAD_KINDS)[number];
