// Looking texts up, without React or loading, so the rules can be tested on their own. The format is
// the one of locales/<lang>.json, shared with the e-mails (its rules are in common/src/i18n.ts); the
// web client's keys are dot paths into nested objects.
import { bcp47, fillLocalized, findText } from '@kith/common';

export { bcp47 };

/** The texts of one language: nested objects of strings. */
export type Texts = Record<string, unknown>;

/**
 * Translates a key. Options: `count` chooses the plural form, `defaultValue` stands in for a
 * missing text, and every option fills the `{{placeholder}}` of its name.
 */
export type TFunction = (key: string, options?: Record<string, unknown>) => string;

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
    const text =
      findText(lang, key, typeof count === 'number' ? count : undefined, (code, path) => lookup(texts[code], path)) ??
      (typeof defaultValue === 'string' ? defaultValue : key);
    // No HTML escaping: React escapes. The values are names, titles and counts.
    return fillLocalized(lang, text, options);
  };
}
