import { NOTIFICATION_TYPES, PUSH_CHOICES, type PushChoice } from '@kith/common';

/**
 * The rules of Web Push (docs/api §11.9), pure functions over facts the callers load: which
 * notifications a user's choice lets through, and whether a moment falls in their quiet hours.
 */

/** A user's choice; never chosen means `all` (subscribing a device is already the opt-in). */
export function pushChoiceOf(stored: string | null): PushChoice {
  return (PUSH_CHOICES as readonly string[]).includes(stored ?? '') ? (stored as PushChoice) : 'all';
}

/**
 * The notification type of @mentions (added by the mentions feature): compared as a string, since
 * the push rules must hold whether or not that type is listed yet.
 */
export const MENTION_TYPE = 'mention';

/** What the push rule needs to know about one notification. */
export interface PushFacts {
  type: string;
  /** True when it is a comment on a message the recipient wrote (a reply to them). */
  replyToRecipient: boolean;
}

/**
 * Whether `choice` lets this notification be pushed: `all` every type the app lists (and
 * mentions); `mentions_replies` mentions and comments on the recipient's own messages; `none`
 * nothing.
 */
export function pushAdmits(choice: PushChoice, facts: PushFacts): boolean {
  switch (choice) {
    case 'none':
      return false;
    case 'mentions_replies':
      return facts.type === MENTION_TYPE || (facts.type === 'new_comment' && facts.replyToRecipient);
    case 'all':
      return facts.type === MENTION_TYPE || (NOTIFICATION_TYPES as readonly string[]).includes(facts.type);
  }
}

/** Minutes since midnight of "HH:MM" (00:00 to 23:59), or null. */
function minutesOf(text: string): number | null {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  return match === null ? null : Number(match[1]) * 60 + Number(match[2]);
}

/** Quiet hours as minutes of the day; `end` may be before `start` (spanning midnight). */
export interface QuietHours {
  start: number;
  end: number;
}

/**
 * "HH:MM-HH:MM" as minutes, `null` for "" (no quiet hours), `'invalid'` for anything else,
 * including two equal times (a range that is empty, or the whole day, is not a range anyone means).
 */
export function parseQuietHours(text: string): QuietHours | null | 'invalid' {
  if (text === '') return null;
  const [from, to, ...rest] = text.split('-');
  if (from === undefined || to === undefined || rest.length > 0) return 'invalid';
  const start = minutesOf(from);
  const end = minutesOf(to);
  if (start === null || end === null || start === end) return 'invalid';
  return { start, end };
}

/** Whether `timeZone` is an IANA name this runtime knows. */
export function isValidTimeZone(timeZone: string): boolean {
  if (timeZone === '' || timeZone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The minute of the day at `atMs` in `timeZone`. */
export function minuteOfDay(atMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(atMs);
  const value = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return value('hour') * 60 + value('minute');
}

/** Whether `atMs` falls in the quiet hours (start included, end excluded) in `timeZone`. */
export function inQuietHours(quiet: QuietHours | null, atMs: number, timeZone: string): boolean {
  if (quiet === null) return false;
  const minute = minuteOfDay(atMs, timeZone);
  return quiet.start < quiet.end
    ? minute >= quiet.start && minute < quiet.end
    : minute >= quiet.start || minute < quiet.end;
}
