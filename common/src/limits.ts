/**
 * Limits that come from the product spec and the API contract. They live here once and are
 * shared by the server (validation) and the web client (form attributes, paging).
 */
export const LIMITS = {
  /** Message text, in UTF-16 code units (JavaScript `length`). */
  text: 50000,
  /** Message title. */
  title: 500,
  /** Group and user names, after trimming. */
  nameMin: 1,
  name: 128,
  /** New passwords. */
  passwordMin: 8,
  passwordMax: 128,
  /** Passwords accepted at login (imported accounts may have short ones). */
  loginPasswordMax: 1024,
  /** E-mail addresses (logins). */
  email: 254,
  /** Files attached to one message. */
  filesPerMessage: 200,
  /** People one message may @mention (the ids of `mentions`, issue 21). */
  mentionsPerMessage: 50,
  /** Suggestions the composer shows after `@`. */
  mentionSuggestions: 8,
  /** JSON request bodies. */
  jsonBodyBytes: 1024 * 1024,
  /** Messages pinned at the top of one group at a time (docs/api §6.3 `pinnedInGroup`). */
  pinsPerGroup: 5,
  /** Devices one user may have receive Web Push (docs/api §11.9). */
  pushSubscriptionsPerUser: 20,
  /** Group feed page (docs/api §5.4). */
  groupPageSize: 30,
  /** Notifications: default, maximum, and what the web client shows (it asks one more). */
  notificationsDefault: 50,
  notificationsMax: 200,
  notificationsShown: 20,
  /** Bookmarks: default, maximum, and what the web client shows (it asks one more). */
  bookmarksDefault: 1000,
  bookmarksMax: 2000,
  /** Comment window in the message screen. */
  commentsInitial: 5,
  commentsStep: 10,
  /** Transient alert display time in the client, in ms. */
  alertMs: 5000,
  /** Language codes stored in user settings. */
  langCode: 16,
} as const;

/** Thumbnail widths/heights and crop boxes the server agrees to make (docs/api §7.4). */
export const IMAGE_SIZES = {
  thumbnail: ['720/99999', '1366/99999', '2048/99999', '1280/720', '420/994'],
  crop: ['320/180', '160/160', '100/100', '80/80', '200/200', '270/270', '1024/270'],
} as const;
