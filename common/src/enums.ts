/**
 * How often a user wants notification digests by e-mail (docs/api §10.8); `immediately` (issue 20):
 * a burst of activity becomes one mail a couple of minutes later.
 */
export const NOTIFICATION_EMAIL_FREQUENCIES = ['none', 'immediately', 'hourly', 'daily', 'weekly', 'monthly'] as const;
export type NotificationEmailFrequency = (typeof NOTIFICATION_EMAIL_FREQUENCIES)[number];

/**
 * What Web Push sends a user (`data.push_notifications`, issue 21, docs/api §11.9): everything they
 * are notified of, only mentions of them and replies to their own messages, or nothing.
 */
export const PUSH_CHOICES = ['all', 'mentions_replies', 'none'] as const;
export type PushChoice = (typeof PUSH_CHOICES)[number];

/**
 * How mentions of a user travel by e-mail (`data.mention_emails`, issue 21, docs/api §11.10): with
 * the other notifications (the user's digest or immediate mail, the default), on their own within
 * the immediate delay whatever the digest frequency, or never.
 */
export const MENTION_EMAIL_CHOICES = ['with_others', 'immediately', 'none'] as const;
export type MentionEmailChoice = (typeof MENTION_EMAIL_CHOICES)[number];

/** The colour scheme a user chose (`data.theme`); `system` follows the device's light or dark setting. */
export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/**
 * The page `/` opens (`data.default_page`, the values of Zusam 0.6.1): the default group, or `feed`,
 * the latest activity of all the user's groups (docs/api §11.8).
 */
export const DEFAULT_PAGES = ['default_group', 'feed'] as const;
export type DefaultPage = (typeof DEFAULT_PAGES)[number];

/** Notification types (docs/api §2.7). */
export const NOTIFICATION_TYPES = [
  'new_message',
  'new_comment',
  'user_joined_group',
  'user_left_group',
  'group_name_change',
  'global_notification',
  // Kith addition (issue 20): someone reacted to the recipient's message; listed only to clients that ask for it.
  'new_reaction',
  // Kith addition (issue 21): the recipient was @mentioned in a message; listed as such only to clients
  // that ask for it (`include=mentions`), presented to others as the new_message or new_comment it replaces.
  'mention',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** Upload kinds an instance can enable (docs/api §3.1, §7.1). */
export const UPLOAD_KINDS = ['image', 'video', 'audio', 'pdf'] as const;
export type UploadKind = (typeof UPLOAD_KINDS)[number];

/**
 * The accepted formats (docs/api §7.1) by the extension `file-type` detects from the bytes, with
 * their kind. The web client also reads file names with it, because browsers report no MIME type
 * for some formats (HEIC, MKV, AMR on many systems).
 */
export const UPLOAD_EXTENSIONS: Readonly<Record<string, UploadKind>> = {
  jpg: 'image',
  png: 'image',
  gif: 'image',
  webp: 'image',
  heic: 'image',
  avif: 'image',
  tif: 'image',
  bmp: 'image',
  mp4: 'video',
  m4v: 'video',
  mov: 'video',
  webm: 'video',
  mkv: 'video',
  avi: 'video',
  '3gp': 'video',
  '3g2': 'video',
  mts: 'video',
  mp3: 'audio',
  m4a: 'audio',
  aac: 'audio',
  ogg: 'audio',
  oga: 'audio',
  opus: 'audio',
  wav: 'audio',
  flac: 'audio',
  amr: 'audio',
  pdf: 'pdf',
};
