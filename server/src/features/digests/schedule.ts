import type { DigestFrequency } from '../../jobs/job-queue.js';

/** The frequencies that have a schedule, in the order a run handles them. */
export const DIGEST_FREQUENCIES: readonly DigestFrequency[] = ['hourly', 'daily', 'weekly', 'monthly'];

/** Daily, weekly and monthly digests go out at this hour of the instance's time zone (§10.8). */
export const DIGEST_HOUR = 7;

interface WallTime {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 1 = Monday … 7 = Sunday */
  weekday: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };
const formats = new Map<string, Intl.DateTimeFormat>();

/** What a wall clock in `timeZone` shows at instant `ms`. */
export function wallTime(ms: number, timeZone: string): WallTime {
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formats.set(timeZone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(ms)) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS[parts.weekday ?? ''] ?? 1,
  };
}

/** How far `timeZone` is ahead of UTC at instant `ms` (ms; whole seconds). */
function offsetAt(ms: number, timeZone: string): number {
  const w = wallTime(ms, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant a wall clock in `timeZone` shows `hour`:00 on the given date. Month and day may
 * overflow (day 0 is the last day of the month before). An hour shown twice (clocks turned back)
 * gives the first time; an hour skipped by a daylight-saving jump gives the first instant after it.
 */
export function zonedInstant(year: number, month: number, day: number, hour: number, timeZone: string): number {
  const asUtc = Date.UTC(year, month - 1, day, hour);
  const date = new Date(asUtc);
  // The offsets in force a day before, at, and a day after: around a change they differ, and each
  // gives a candidate instant.
  const guesses = [asUtc - DAY_MS, asUtc, asUtc + DAY_MS].map((probe) => asUtc - offsetAt(probe, timeZone));
  const showing = guesses.filter((t) => {
    const w = wallTime(t, timeZone);
    return w.hour === hour && w.day === date.getUTCDate() && w.month === date.getUTCMonth() + 1;
  });
  return showing.length > 0 ? Math.min(...showing) : Math.max(...guesses);
}

/**
 * The latest scheduled time of `frequency` at or before `now` (docs/api §10.8): hourly at minute 0,
 * daily at 07:00, weekly on Monday at 07:00, monthly on the 1st at 07:00, in `timeZone`.
 */
export function latestSlot(frequency: DigestFrequency, now: number, timeZone: string): number {
  const w = wallTime(now, timeZone);
  if (frequency === 'hourly') {
    // Every offset in use is a whole number of minutes, so local minute 0 is a UTC minute boundary.
    return now - (now % 1000) - (w.minute * 60 + w.second) * 1000;
  }
  const at = (back: number): number => {
    if (frequency === 'monthly') return zonedInstant(w.year, w.month - back, 1, DIGEST_HOUR, timeZone);
    const daysBack = frequency === 'weekly' ? w.weekday - 1 + 7 * back : back;
    return zonedInstant(w.year, w.month, w.day - daysBack, DIGEST_HOUR, timeZone);
  };
  const current = at(0);
  return current <= now ? current : at(1);
}
