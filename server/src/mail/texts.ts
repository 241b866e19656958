import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FALLBACK_LANGUAGE, fillLocalized, findText, isOfferedLanguage, type Language } from '@kith/common';

/**
 * The e-mail texts, read from `locales/<lang>.json` (the `mail` section), the same files the web
 * client reads. Keys and `{{placeholders}}` follow one format with the web client, plurals included
 * (`key_one`, `key_few`, `key_other`… chosen with `Intl.PluralRules`), so translators see one format.
 */
export const LOCALES_DIR = path.resolve(import.meta.dirname, '..', '..', '..', 'locales');

export type Translate = (key: string, params?: Record<string, string | number>) => string;

type Section = 'mail' | 'server';
/** A section's texts: strings, or sub-objects of their own (`mail.reply`), read as `reply.key`. */
type Texts = Record<string, unknown>;
type LocaleFile = Partial<Record<Section, Texts>>;

const cache = new Map<Language, LocaleFile>();

/** One section of one language's file; each file is read once. */
function sectionTexts(lang: Language, section: Section): Texts {
  let file = cache.get(lang);
  if (file === undefined) {
    try {
      file = JSON.parse(readFileSync(path.join(LOCALES_DIR, `${lang}.json`), 'utf8')) as LocaleFile;
    } catch (error) {
      // English is the source: without it no mail can be written, and that must show at once.
      if (lang === FALLBACK_LANGUAGE) throw error;
      // A missing or broken translation file: the mail goes out in English rather than not at all.
      file = {};
    }
    cache.set(lang, file);
  }
  return file[section] ?? {};
}

/** The `mail` texts of one language, read once. */
export function mailTexts(lang: Language): Texts {
  return sectionTexts(lang, 'mail');
}

/** The text at `key` of a section; a dotted key (`reply.hint`, `mention.subject`) reads a feature's own sub-object. */
function textAt(texts: Texts, key: string): string | undefined {
  let node: unknown = texts;
  for (const part of key.split('.')) {
    node = typeof node === 'object' && node !== null ? (node as Texts)[part] : undefined;
  }
  return typeof node === 'string' ? node : undefined;
}

/**
 * A text of the `server` section (what the server writes for people outside e-mails, such as the
 * first group's name) in `lang`, else in en_US.
 */
export function serverText(lang: string, key: string): string {
  const code = isOfferedLanguage(lang) ? lang : FALLBACK_LANGUAGE;
  const text = textAt(sectionTexts(code, 'server'), key) ?? textAt(sectionTexts(FALLBACK_LANGUAGE, 'server'), key);
  if (text === undefined) throw new Error(`Missing server text "${key}"`);
  return text;
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
    const text = findText(lang, key, count, (code, name) => textAt(mailTexts(code as Language), name));
    if (text === undefined) throw new Error(`Missing mail text "${key}"`);
    return fillLocalized(lang, text, params);
  };
}
