/**
 * Table types. Conventions kept on both engines:
 * - ids are lowercase UUID v4 strings;
 * - timestamps are integer Unix **milliseconds** (presenters turn them into the contract's seconds;
 *   milliseconds keep "newest first" stable when several rows share a second);
 * - booleans are integers 0/1 (SQLite has no boolean type);
 * - JSON is stored as text.
 */
import type { Generated } from 'kysely';

export interface UsersTable {
  id: string;
  login: string;
  name: string;
  password_hash: string;
  /** SHA-256 (hex) of the API key: keys are looked up by this. */
  api_key_hash: string;
  /** The API key itself, AES-256-GCM encrypted with the server secret, so login can hand it back. */
  api_key_enc: string;
  /** Grows on every key change; media cookies and event streams name it. */
  api_key_version: number;
  avatar_id: string | null;
  default_group_id: string | null;
  notification_emails: string | null;
  lang: string | null;
  /** The colour scheme chosen in the settings (`data.theme`: system, light, dark); null when never chosen. */
  theme: string | null;
  /** The page the client opens first (`data.default_page`: default_group, feed); null when never chosen. */
  default_page: string | null;
  /** What Web Push sends (`data.push_notifications`: all, mentions_replies, none); null when never chosen (all). */
  push_notifications: string | null;
  /** `data.quiet_hours`: "HH:MM-HH:MM" in time_zone, or "" for none; null when never set. */
  quiet_hours: string | null;
  /** `data.time_zone`: IANA name; null when never set (the instance's TIME_ZONE). */
  time_zone: string | null;
  /** Creation time (ms) of the newest notification a push job has dealt with (features/push/). */
  push_cursor: number | null;
  /** How mentions are mailed (`data.mention_emails`: with_others, immediately, none); null means with_others. */
  mention_emails: string | null;
  created_at: number;
  last_activity_date: number;
  /** Bytes of the stored files this user uploaded; kept by triggers on `files` (migration 0021). */
  storage_bytes: Generated<number>;
  /** Bytes claimed by this user's uploads still streaming (features/files/quota.ts). */
  storage_reserved: Generated<number>;
  /** When an administrator disabled the account (ms); null while it is enabled. */
  disabled_at: Generated<number | null>;
  /** "Mark all read" up to this time (ms) for group notifications (migration 0024); null: never. */
  notifications_read_until: Generated<number | null>;
}

export interface GroupsTable {
  id: string;
  name: string;
  /** The invitation key (`secretKey` in the API). */
  secret_key: string;
  created_at: number;
  last_activity_date: number;
  /** When the last member left; the group is purged 30 days later unless someone joins. */
  emptied_at: number | null;
  /** How many of its messages are in front (is_in_front = 1); kept by triggers (migration 0009). */
  front_count: Generated<number>;
  /**
   * How many messages were ever posted to it, replies and since-deleted ones included; kept by the
   * insert triggers (migration 0030). The search index cuts the group into slices by it
   * (search/search-index.ts).
   */
  messages_posted: Generated<number>;
}

export interface MembershipsTable {
  group_id: string;
  user_id: string;
  /** Join time in ms; member lists and "my groups" are ordered by it. */
  joined_at: number;
}

export interface NotificationsTable {
  id: string;
  user_id: string;
  type: string;
  created_at: number;
  read: number;
  target: string;
  /** JSON object: `{}`, `{previousGroupName,newGroupName}` or `{text}`. */
  data: string;
  from_user_id: string | null;
  from_group_id: string | null;
  from_message_id: string | null;
  /** Resolved when the notification is created (docs/api §2.7), plain text ≤ 100 characters. */
  title: string;
  /** When it went out in an e-mail digest (ms); null until then. */
  emailed_at: number | null;
}

/**
 * A notification sent to every other member of a group (notifyGroupMembers), stored once
 * (migration 0024): its recipients are the members whose membership began at or before
 * `created_at`, but `actor_id`. Each recipient sees it under their own id (notifications/ids.ts).
 */
export interface NotificationEventsTable {
  id: string;
  group_id: string;
  actor_id: string | null;
  type: string;
  created_at: number;
  target: string;
  data: string;
  from_user_id: string | null;
  from_group_id: string | null;
  from_message_id: string | null;
  title: string;
}

/** A member's state of an event, only where it differs from unread, listed and not mailed. */
export interface NotificationStatesTable {
  user_id: string;
  event_id: string;
  /** 1 read, 0 unread; null: read only if users.notifications_read_until covers the event. */
  read: number | null;
  /** 1: deleted by the member, or the member was not meant to get it (mentioned instead). */
  deleted: Generated<number>;
  emailed_at: number | null;
}

export interface PasswordResetKeysTable {
  id: string;
  user_id: string;
  /** SHA-256 (hex) of the reset key; the key itself is only ever in the e-mail. */
  key_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface MessagesTable {
  id: string;
  group_id: string;
  author_id: string | null;
  parent_id: string | null;
  root_id: string;
  /** JSON array of ancestor ids, nearest parent first. */
  lineage: string;
  title: string | null;
  text: string | null;
  no_embed: number | null;
  created_at: number;
  last_activity_date: number;
  is_in_front: number;
  is_deleted: number;
  public_token: string | null;
  /** Place among the group's pinned messages, smaller first; null when not pinned (migration 0015). */
  pin_order: number | null;
}

export interface BookmarksTable {
  id: string;
  user_id: string;
  message_id: string;
  created_at: number;
}

/** One emoji of one user on one message (migration 0014). */
export interface ReactionsTable {
  id: string;
  message_id: string;
  user_id: string;
  emoji: string;
  created_at: number;
}

/** A link preview (docs/api §2.9, §7.5): the last fetch of one URL, shared by every user. */
export interface LinksTable {
  id: string;
  /** The URL as requested (after the one percent-decoding of the query string). */
  url: string;
  /** JSON object: the `data` of the answer, or `{origin, exception}` after a failed first fetch. */
  data: string;
  /** The stored preview image; always null until file storage lands. */
  preview_file_id: string | null;
  /** Time of the last fetch (successful or not). */
  updated_at: number;
  /** 1 when the last fetch failed: it is retried after 1 hour instead of 7 days. */
  failed: number;
}

export interface FilesTable {
  id: string;
  /** Null once the uploader deleted their account. */
  uploader_id: string | null;
  /** MIME type of the stored bytes, detected from their content. */
  type: string;
  kind: 'image' | 'video' | 'audio' | 'pdf';
  status: 'raw' | 'ready';
  size: number;
  /** Original file name, cleaned of path and control characters. */
  name: string;
  /** Key of the bytes in the FileStore. */
  storage_key: string;
  /** Extension of the signed name `<id>.<ext>`. */
  ext: string;
  width: number | null;
  height: number | null;
  /** 0–100 while a raw video or audio file is converted, else null. */
  progress: number | null;
  error: string | null;
  created_at: number;
  updated_at: number;
}

/** The instance's storage use, one row (id 1), kept like `users.storage_bytes` (migration 0021). */
export interface InstanceStorageTable {
  id: number;
  bytes: number;
  reserved: number;
}

export interface MessageFilesTable {
  message_id: string;
  file_id: string;
  /** 0..n-1 within the message (`fileIndex`). */
  position: number;
}

/** A background job (src/jobs/). */
export interface JobsTable {
  id: string;
  name: string;
  /** The handler's input, JSON text. */
  payload: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  attempts: number;
  max_attempts: number;
  /** Not run before this time (ms). */
  run_after: number;
  /**
   * While claimed (by the embedded runner, or by the relay handing it to BullMQ): the lease end (ms);
   * an expired lease means the claimer died. Null while `running` in BullMQ, whose lock is the lease.
   */
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  /** Times handed over to BullMQ; the BullMQ job `<id>.<handovers>` is the one that may run it (migration 0013). */
  handovers: Generated<number>;
}

/** The last scheduled digest time run for each frequency (src/features/digests/). */
export interface DigestRunsTable {
  frequency: string;
  slot: number;
}

/** A reply address (migration 0020): its token's id names the user and the message a reply comments on. */
export interface ReplyAddressesTable {
  id: string;
  user_id: string;
  message_id: string;
  expires_at: number;
}

/** A mail already taken in by reply by e-mail (migration 0020), so a second delivery changes nothing. */
export interface ReceivedRepliesTable {
  key: string;
  user_id: string;
  received_at: number;
}

export interface KithMetaTable {
  key: string;
  value: string;
}

/** A device that receives Web Push (features/push/). */
export interface PushSubscriptionsTable {
  id: string;
  user_id: string;
  endpoint: string;
  /** The device's P-256 public key, base64url. */
  p256dh: string;
  /** The device's 16-byte auth secret, base64url. */
  auth: string;
  label: string;
  created_at: number;
  last_push_at: number | null;
  /** Failed sends in a row (reset by a success). */
  failures: Generated<number>;
}

/** A browser that reported Kith focused, until expires_at (features/push/). */
export interface PushPresenceTable {
  user_id: string;
  device: string;
  expires_at: number;
}

/** One person a message @mentions (issue 21, migration 0019). */
export interface MentionsTable {
  message_id: string;
  user_id: string;
  /** The name as written after `@` in the text when the mention was made. */
  written_name: string;
  /** Its place among the message's mentions, by first occurrence in the text. */
  position: number;
}

/** A member's export (issue 22, migration 0022): the zip of what they wrote, built by a job. */
export interface ExportsTable {
  id: string;
  user_id: string;
  state: 'building' | 'ready' | 'failed';
  /** The zip's FileStore key, once ready. */
  storage_key: string | null;
  size: number | null;
  /** Why building failed (for operators; never shown to the member). */
  error: string | null;
  created_at: number;
  finished_at: number | null;
  /** When housekeeping deletes a ready export and its zip. */
  expires_at: number | null;
}

/** One item brought over by `import-zusam` (migration 0023): a Zusam id and the Kith id it became. */
export interface ZusamImportsTable {
  kind: string;
  zusam_id: string;
  kith_id: string;
  imported_at: number;
}

export interface Database {
  users: UsersTable;
  groups: GroupsTable;
  memberships: MembershipsTable;
  notifications: NotificationsTable;
  notification_events: NotificationEventsTable;
  notification_states: NotificationStatesTable;
  password_reset_keys: PasswordResetKeysTable;
  messages: MessagesTable;
  bookmarks: BookmarksTable;
  files: FilesTable;
  message_files: MessageFilesTable;
  kith_meta: KithMetaTable;
  links: LinksTable;
  jobs: JobsTable;
  digest_runs: DigestRunsTable;
  reactions: ReactionsTable;
  push_subscriptions: PushSubscriptionsTable;
  push_presence: PushPresenceTable;
  reply_addresses: ReplyAddressesTable;
  received_replies: ReceivedRepliesTable;
  mentions: MentionsTable;
  exports: ExportsTable;
  zusam_imports: ZusamImportsTable;
  instance_storage: InstanceStorageTable;
}
