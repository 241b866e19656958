import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  FALLBACK_LANGUAGE,
  fillPlaceholders,
  findText,
  formatNumber,
  isOfferedLanguage,
  type Language,
} from '@kith/common';

/**
 * The e-mail texts, read from `locales/<lang>.json` (the `mail` section), the same files the web
 * client reads. Keys and `{{placeholders}}` follow one format with the web client, plurals included
 * (`key_one`, `key_few`, `key_other`… chosen with `Intl.PluralRules`), so translators see one format.
 */
export const LOCALES_DIR = path.resolve(import.meta.dirname, '..', '..', '..', 'locales');

export type Translate = (key: string, params?: Record<string, string | number>) => string;

const cache = new Map<Language, Record<string, string>>();

/** The `mail` texts of one language, read once. */
export function mailTexts(lang: Language): Record<string, string> {
  let texts = cache.get(lang);
  if (texts === undefined) {
    try {
      const file = JSON.parse(readFileSync(path.join(LOCALES_DIR, `${lang}.json`), 'utf8')) as {
        mail?: Record<string, string>;
      };
      texts = file.mail ?? {};
    } catch (error) {
      // English is the source: without it no mail can be written, and that must show at once.
      if (lang === FALLBACK_LANGUAGE) throw error;
      // A missing or broken translation file: the mail goes out in English rather than not at all.
      texts = {};
    }
    cache.set(lang, texts);
  }
  return texts;
}

/** The language mails to this user are written in: theirs when Kith offers it, else the fallback. */
export function mailLanguage(userLang: string | null | undefined, instanceDefault: string): Language {
  if (typeof userLang === 'string' && isOfferedLanguage(userLang)) return userLang;
  return isOfferedLanguage(instanceDefault) ? instanceDefault : FALLBACK_LANGUAGE;
}

/**
 * A translate function for `lang`. A text missing in that language falls back to en_US (the rules
 * are in common/src/i18n.ts), so a half-translated file never produces a broken mail; `{{name}}`
 * placeholders are filled in, numbers written the locale's way ("1 234").
 */
export function translator(lang: Language): Translate {
  return (key, params = {}) => {
    const count = typeof params.count === 'number' ? params.count : undefined;
    const text = findText(lang, key, count, (code, name) => mailTexts(code as Language)[name]);
    if (text === undefined) throw new Error(`Missing mail text "${key}"`);
    const values: Record<string, string> = {};
    for (const [name, value] of Object.entries(params))
      values[name] = typeof value === 'number' ? formatNumber(lang, value) : value;
    return fillPlaceholders(text, values);
  };
}
