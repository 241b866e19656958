import { bcp47 } from './i18n.js';
import { hasLocale } from './locale-format.js';

// The formatters only some screens use (the notification panel, a message's tooltip), apart from
// locale-format.ts so that the first screen of the web client does not carry them.

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

/** A date and time in full, for a tooltip; digits only when the runtime lacks the locale. */
export function formatDateTime(lang: string, date: Date): string {
  let format = dateTimeFormats.get(lang);
  if (format === undefined) {
    // Built once per language, as the other formatters: a thread renders one per comment.
    format = hasLocale('date', Intl.DateTimeFormat, lang)
      ? new Intl.DateTimeFormat(bcp47(lang), { dateStyle: 'long', timeStyle: 'short' })
      : new Intl.DateTimeFormat('sv-SE', { dateStyle: 'short', timeStyle: 'short' });
    dateTimeFormats.set(lang, format);
  }
  return format.format(date);
}

const listFormats = new Map<string, Intl.ListFormat | null>();

/**
 * Names joined as the locale joins them ("Ann, Bob and Eve", "Ann, Bob et Eve", "Ann、Bob和Eve").
 * Without the locale in the runtime, two names go through `joinTwo` (a translated "{{first}} and
 * {{second}}") and longer lists are built from it.
 */
export function formatList(
  lang: string,
  items: readonly string[],
  joinTwo: (first: string, second: string) => string,
): string {
  let format = listFormats.get(lang);
  if (format === undefined) {
    format = hasLocale('list', Intl.ListFormat, lang)
      ? new Intl.ListFormat(bcp47(lang), { type: 'conjunction' })
      : null;
    listFormats.set(lang, format);
  }
  if (format !== null) return format.format(items);
  if (items.length <= 1) return items[0] ?? '';
  return joinTwo(items.slice(0, -1).join(', '), items[items.length - 1] ?? '');
}

/** The units of `formatByteSize`, by power of 1024; Intl names them by their decimal names. */
const BYTE_UNITS = ['kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;
const BYTE_SYMBOLS = ['KB', 'MB', 'GB', 'TB'] as const;
const byteFormats = new Map<string, Intl.NumberFormat | null>();

/**
 * A number of bytes as the locale writes a size ("1.2 GB", "1,2 Go", "1,2 ГБ"), in steps of 1024
 * (the quotas are set in MiB, so a 5120 MB quota reads "5 GB"), with at most one decimal below
 * 100; under a kilobyte in tenths of one ("0.5 kB": a bare "byte" reads oddly in most languages).
 * Without the locale in the runtime: the digits and the international symbol ("1.2 GB").
 */
export function formatByteSize(lang: string, bytes: number): string {
  let power = 0;
  let value = Math.max(0, bytes) / 1024;
  while (value >= 1024 && power < BYTE_UNITS.length - 1) {
    value /= 1024;
    power += 1;
  }
  const digits = value >= 100 ? 0 : 1;
  const key = `${lang} ${power} ${digits}`;
  let format = byteFormats.get(key);
  if (format === undefined) {
    format = hasLocale('number', Intl.NumberFormat, lang)
      ? new Intl.NumberFormat(bcp47(lang), {
          style: 'unit',
          unit: BYTE_UNITS[power],
          unitDisplay: 'short',
          maximumFractionDigits: digits,
        })
      : null;
    byteFormats.set(key, format);
  }
  if (format !== null) return format.format(value);
  const rounded = Number(value.toFixed(digits));
  return `${rounded} ${BYTE_SYMBOLS[power] ?? 'B'}`;
}
