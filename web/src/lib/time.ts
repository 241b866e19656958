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

const FALLBACK_LOCALE = 'en-US';

function dateFormatter(locale: string): Intl.DateTimeFormat {
  // The app's language codes are written like en_US; Intl wants BCP 47 hyphens.
  const tag = locale.replace(/_/g, '-');
  try {
    return new Intl.DateTimeFormat(tag, { dateStyle: 'medium' });
  } catch {
    // An unknown or malformed tag throws RangeError; a date in English beats a broken screen.
    return new Intl.DateTimeFormat(FALLBACK_LOCALE, { dateStyle: 'medium' });
  }
}

/** The translation function formatRelativeTime needs: lib/i18n's, or a stub in tests. */
export type Translate = (key: string, opts?: Record<string, unknown>) => string;

/** Renders a RelativeTime with the translation function, dates in the locale's medium style. */
export function formatRelativeTime(rel: RelativeTime, t: Translate, locale: string): string {
  switch (rel.kind) {
    case 'now':
      return t('time.just_now');
    case 'minutes':
      return t('time.minutes', { count: rel.count });
    case 'hours':
      return t('time.hours', { count: rel.count });
    case 'date':
      return dateFormatter(locale).format(rel.date);
  }
}
