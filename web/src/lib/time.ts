import { formatDate, formatTimeAgo } from '@kith/common';

/**
 * Relative timestamps (product spec): under 1 minute "just now", under 60 minutes minutes,
 * under 24 hours hours, otherwise the date. Split into a pure classification and a formatter so
 * the thresholds can be tested without i18n.
 */

export type RelativeTime =
  | { kind: 'now' }
  | { kind: 'minutes'; count: number }
  | { kind: 'hours'; count: number }
  | { kind: 'date'; date: Date };

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** Classifies a server timestamp (epoch seconds) relative to `nowMs`, flooring each unit. */
export function relativeTime(epochSeconds: number, nowMs: number): RelativeTime {
  const elapsed = nowMs - epochSeconds * 1000;
  // Clock skew between server and client can put fresh items slightly in the future.
  if (elapsed < MINUTE_MS) return { kind: 'now' };
  if (elapsed < HOUR_MS) return { kind: 'minutes', count: Math.floor(elapsed / MINUTE_MS) };
  if (elapsed < DAY_MS) return { kind: 'hours', count: Math.floor(elapsed / HOUR_MS) };
  return { kind: 'date', date: new Date(epochSeconds * 1000) };
}

/** The translation function formatRelativeTime needs: lib/i18n's, or a stub in tests. */
export type Translate = (key: string, opts?: Record<string, unknown>) => string;

/**
 * Renders a RelativeTime in `lang`: "just now" from our texts (Intl's "now" reads as a clock),
 * minutes and hours in the locale's own words through Intl.RelativeTimeFormat, or our translated
 * texts where the runtime lacks them, and dates in the locale's medium style (digits only without it).
 */
export function formatRelativeTime(rel: RelativeTime, t: Translate, lang: string): string {
  switch (rel.kind) {
    case 'now':
      return t('time.just_now');
    case 'minutes':
      return formatTimeAgo(lang, rel.count, 'minute') ?? t('time.minutes', { count: rel.count });
    case 'hours':
      return formatTimeAgo(lang, rel.count, 'hour') ?? t('time.hours', { count: rel.count });
    case 'date':
      return formatDate(lang, rel.date);
  }
}
