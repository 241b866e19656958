import type { Notification } from '@kith/common';

/**
 * The notification panel's entries: the comments on one message collapse into one entry ("Bob and
 * 3 others commented on …"), every other notification stays its own entry.
 */
export interface NotificationEntry {
  /** The newest notification of the entry, whose title, group and time the entry shows. */
  lead: Notification;
  /** Every notification of the entry, newest first: reading or removing the entry acts on all. */
  all: Notification[];
  /** The distinct people behind it, newest first (null: an account since deleted). */
  people: (string | null)[];
  /** True when any of them is unread. */
  unread: boolean;
}

// What makes notifications one entry: comments under the same message.
function entryKey(n: Notification): string {
  return n.type === 'new_comment' && n.fromMessage !== null ? `comments:${n.fromMessage.id}` : n.id;
}

/** Groups `list` (newest first, as the server answers) into entries, ordered by their newest. */
export function collapseNotifications(list: readonly Notification[]): NotificationEntry[] {
  const entries = new Map<string, NotificationEntry>();
  for (const n of list) {
    const key = entryKey(n);
    const entry = entries.get(key);
    const person = n.fromUser?.name ?? null;
    if (entry === undefined) {
      entries.set(key, { lead: n, all: [n], people: [person], unread: !n.read });
      continue;
    }
    entry.all.push(n);
    entry.unread ||= !n.read;
    if (!entry.people.includes(person)) entry.people.push(person);
  }
  return [...entries.values()];
}

/** How many entries are unread, for the bell's badge: a collapsed entry counts once. */
export function unreadEntries(entries: readonly NotificationEntry[]): number {
  return entries.reduce((sum, entry) => (entry.unread ? sum + 1 : sum), 0);
}

/**
 * Where opening an entry leads: its oldest unread comment, so reading starts at the first new
 * one (the comment window shows the ones around it), else the newest.
 */
export function entryTarget(entry: NotificationEntry): Notification {
  return entry.all.findLast((n) => !n.read) ?? entry.lead;
}
