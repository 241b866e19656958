/** The sizes of the two data sets and the fixed clock of the data. */

/** `x10`: the full data set with ten times the big group's messages (issue 23, cost growth). */
export const SCALE_NAMES = ['small', 'full', 'x10'] as const;
export type ScaleName = (typeof SCALE_NAMES)[number];

/** Whether a command-line value names a scale. */
export function isScaleName(value: unknown): value is ScaleName {
  return typeof value === 'string' && (SCALE_NAMES as readonly string[]).includes(value);
}

export interface Scale {
  name: ScaleName;
  users: number;
  groups: number;
  /** Every message, posts and replies; one third of them are replies. */
  messages: number;
  /** Messages of "Big group" (part of `messages`). */
  bigGroupMessages: number;
  /** Members of "Big group": kept at 50 at both scales, the size of a large family group. */
  bigGroupMembers: number;
  /** Images uploaded to "Big group", each attached to its own post. */
  images: number;
}

export const SCALES: Record<ScaleName, Scale> = {
  full: {
    name: 'full',
    users: 10_000,
    groups: 1_000,
    messages: 1_000_000,
    bigGroupMessages: 100_000,
    bigGroupMembers: 50,
    images: 200,
  },
  // The full data set plus 900,000 messages in the big group (1,000,000 there, 1,900,000 in all):
  // how page, feed, search and posting cost grows with one group's size.
  x10: {
    name: 'x10',
    users: 10_000,
    groups: 1_000,
    messages: 1_900_000,
    bigGroupMessages: 1_000_000,
    bigGroupMembers: 50,
    images: 200,
  },
  // 1/100 of every count, except the big group's members.
  small: {
    name: 'small',
    users: 100,
    groups: 10,
    messages: 10_000,
    bigGroupMessages: 1_000,
    bigGroupMembers: 50,
    images: 2,
  },
};

const DAY = 24 * 60 * 60 * 1000;

/**
 * The data's "now": 2026-11-01T00:00:00Z, never the wall clock, so two runs with one seed write the
 * same times. Messages spread over the two years before it.
 */
export const DATA_NOW = Date.UTC(2026, 10, 1);
export const HISTORY_MS = 730 * DAY;
export const HISTORY_START = DATA_NOW - HISTORY_MS;
/** Group notifications exist only for this last stretch of the history: the server's housekeeping deletes older ones. */
export const NOTIFICATION_WINDOW_MS = 365 * DAY;
/** Of a user's newest this many notifications, a share is still unread; everything older is read. */
export const NOTIFICATION_CAP = 150;
/** The notifications user is guaranteed at least this many (a page of 20 with room to page). */
export const NOTIFICATION_USER_MIN = 100;
/** The bookmarks user is guaranteed at least this many. */
export const BOOKMARK_USER_MIN = 50;
/** Direct replies of the message the runner opens as "a thread with 20 comments". */
export const THREAD_COMMENTS = 20;
/** The runner opens event streams for this many users; the manifest lists them. */
export const MANIFEST_USERS = 1_000;

export { DAY };
