import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FALLBACK_LANGUAGE, isOfferedLanguage, type Language } from '@kith/common';

/**
 * The e-mail texts, read from `locales/<lang>.json` (the `mail` section), the same files the web
 * client reads. Keys and `{{placeholders}}` follow i18next's conventions, plurals included
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

/** The BCP 47 tag of a Kith language code: `pt_BR` → `pt-BR`, `zh_Hans` → `zh-Hans`. */
export function bcp47(lang: Language): string {
  return lang.replace('_', '-');
}

/** The language mails to this user are written in: theirs when Kith offers it, else the fallback. */
export function mailLanguage(userLang: string | null | undefined, instanceDefault: string): Language {
  if (typeof userLang === 'string' && isOfferedLanguage(userLang)) return userLang;
  return isOfferedLanguage(instanceDefault) ? instanceDefault : FALLBACK_LANGUAGE;
}

/**
 * A translate function for `lang`. A key missing in that language falls back to en_US, so a
 * half-translated file never produces a broken mail; `{{name}}` placeholders are filled in.
 */
export function translator(lang: Language): Translate {
  const own = mailTexts(lang);
  const fallback = mailTexts(FALLBACK_LANGUAGE);
  const plurals = new Intl.PluralRules(bcp47(lang));
  const fallbackPlurals = new Intl.PluralRules('en-US');
  return (key, params = {}) => {
    const count = params.count;
    let text: string | undefined;
    if (typeof count === 'number') {
      text = own[`${key}_${plurals.select(count)}`] ?? own[`${key}_other`];
      text ??= fallback[`${key}_${fallbackPlurals.select(count)}`] ?? fallback[`${key}_other`];
    }
    text ??= own[key] ?? fallback[key];
    if (text === undefined) throw new Error(`Missing mail text "${key}"`);
    return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) =>
      name in params ? String(params[name]) : whole,
    );
  };
}
