// Looking texts up, without React or loading, so the rules can be tested on their own. The format is
// the one of locales/<lang>.json, shared with the e-mails (server/src/mail/texts.ts): dot paths into
// nested objects, `{{name}}` placeholders, plurals as key_one, key_few, key_other… chosen with
// Intl.PluralRules.
import { FALLBACK_LANGUAGE } from '@kith/common';

/** The texts of one language: nested objects of strings. */
export type Texts = Record<string, unknown>;

/**
 * Translates a key. Options: `count` chooses the plural form, `defaultValue` stands in for a
 * missing text, and every option fills the `{{placeholder}}` of its name.
 */
export type TFunction = (key: string, options?: Record<string, unknown>) => string;

/** BCP 47 tag of a Kith language code, for `<html lang>` and Intl (zh_Hans → zh-Hans). */
export function bcp47(lang: string): string {
  return lang.replace('_', '-');
}

const pluralRules = new Map<string, Intl.PluralRules>();

function pluralOf(lang: string, count: number): string {
  let rules = pluralRules.get(lang);
  if (rules === undefined) pluralRules.set(lang, (rules = new Intl.PluralRules(bcp47(lang))));
  return rules.select(count);
}

/** The text at a dot path; an empty one counts as missing, as a translation not written yet. */
function lookup(texts: Texts | undefined, path: string): string | undefined {
  let node: unknown = texts;
  for (const name of path.split('.')) {
    node = typeof node === 'object' && node !== null ? (node as Texts)[name] : undefined;
  }
  return typeof node === 'string' && node !== '' ? node : undefined;
}

/**
 * The translate function of `lang`, reading `texts` (by language code) at each call, so texts
 * loaded later are seen. A text missing in `lang` comes from en_US, its plural form chosen with the
 * English rules; a text missing in both is `defaultValue`, else the key itself.
 */
export function translator(lang: string, texts: Readonly<Record<string, Texts>>): TFunction {
  return (key, options = {}) => {
    const { count, defaultValue } = options;
    let text: string | undefined;
    for (const code of [lang, FALLBACK_LANGUAGE]) {
      const own = texts[code];
      if (typeof count === 'number') {
        text = lookup(own, `${key}_${pluralOf(code, count)}`) ?? lookup(own, `${key}_other`);
      }
      text ??= lookup(own, key);
      if (text !== undefined) break;
    }
    text ??= typeof defaultValue === 'string' ? defaultValue : key;
    // No HTML escaping: React escapes. A placeholder without its option stays as written; the
    // values are names, titles and counts.
    return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) =>
      Object.hasOwn(options, name) ? String((options[name] as string | number | null | undefined) ?? '') : whole,
    );
  };
}
