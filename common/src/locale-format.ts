import { bcp47, fillPlaceholders } from './i18n.js';

// Dates, relative times, numbers and lists in the reader's language, through Intl. A runtime may
// lack a locale (Tamazight, zgh, is missing from some browsers' Intl, and where present has only
// part of its data), so each formatter falls back on its own: the caller's translated text for a
// relative time or a list, a date written with digits only, never a crash or an English word.

interface Constructor {
  supportedLocalesOf(locales: string): string[];
}

const supported = new Map<string, boolean>();

/** True when the runtime's Intl has `lang` for this kind of formatter. */
export function hasLocale(kind: string, constructor: Constructor, lang: string): boolean {
  const key = `${kind} ${lang}`;
  let answer = supported.get(key);
  if (answer === undefined) {
    try {
      answer = constructor.supportedLocalesOf(bcp47(lang)).length > 0;
    } catch {
      answer = false; // a malformed tag throws RangeError
    }
    supported.set(key, answer);
  }
  return answer;
}

const numberFormats = new Map<string, Intl.NumberFormat>();

/** A count in the locale's digits and grouping ("1 234" in French, "1,234" in English). */
export function formatNumber(lang: string, value: number): string {
  let format = numberFormats.get(lang);
  if (format === undefined) {
    format = hasLocale('number', Intl.NumberFormat, lang)
      ? new Intl.NumberFormat(bcp47(lang))
      : new Intl.NumberFormat('en-US', { useGrouping: false });
    numberFormats.set(lang, format);
  }
  return format.format(value);
}

/**
 * Fills the `{{name}}` placeholders of a text of `lang`, numbers written the locale's way (the
 * plural form was already chosen from the number itself): the web client's and the e-mails' rule.
 */
export function fillLocalized(lang: string, text: string, values: Readonly<Record<string, unknown>>): string {
  const filled: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values))
    filled[name] = typeof value === 'number' ? formatNumber(lang, value) : value;
  return fillPlaceholders(text, filled);
}

const relativeFormats = new Map<string, Intl.RelativeTimeFormat | null>();

function relativeFormat(lang: string): Intl.RelativeTimeFormat | null {
  let format = relativeFormats.get(lang);
  if (format === undefined) {
    format = null;
    if (hasLocale('relative', Intl.RelativeTimeFormat, lang)) {
      const own = new Intl.RelativeTimeFormat(bcp47(lang), { numeric: 'always' });
      // Some runtimes "support" a locale with ICU's root data only, which writes the past as a
      // negative number ("-5 min"): no text for a reader, where the language's own words exist.
      if (!/^[-\u2212]/.test(own.format(-5, 'minute'))) format = own;
    }
    relativeFormats.set(lang, format);
  }
  return format;
}

/**
 * "5 minutes ago", "1 hour ago" in the locale's own words and plural rules, or undefined when the
 * runtime has no such words for the language (the caller then uses its translated text).
 */
export function formatTimeAgo(lang: string, count: number, unit: 'minute' | 'hour'): string | undefined {
  return relativeFormat(lang)?.format(-count, unit);
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * A date in the locale's medium style ("25 nov. 2026"), or, when the runtime lacks the locale,
 * with digits only (2026-11-25), which every reader reads and which names no month in English.
 */
export function formatDate(lang: string, date: Date): string {
  let format = dateFormats.get(lang);
  if (format === undefined) {
    format = hasLocale('date', Intl.DateTimeFormat, lang)
      ? new Intl.DateTimeFormat(bcp47(lang), { dateStyle: 'medium' })
      : new Intl.DateTimeFormat('sv-SE', { year: 'numeric', month: '2-digit', day: '2-digit' });
    dateFormats.set(lang, format);
  }
  return format.format(date);
}
