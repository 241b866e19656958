/** The 15 interface languages the product offers; en_US is the source and the fallback. */
export const LANGUAGES = [
  'cs_CZ',
  'de_DE',
  'en_US',
  'es_ES',
  'fr_FR',
  'hu_HU',
  'ko_KR',
  'nb_NO',
  'nl_NL',
  'pt_BR',
  'ru_RU',
  'sk_SK',
  'ta_IN',
  'zgh',
  'zh_Hans',
] as const;

export type Language = (typeof LANGUAGES)[number];

export const FALLBACK_LANGUAGE: Language = 'en_US';

/** True when `code` is one of the offered languages. */
export function isOfferedLanguage(code: string): code is Language {
  return (LANGUAGES as readonly string[]).includes(code);
}

// The format of locales/<lang>.json, the same for the web client (web/src/lib/translate.ts) and the
// e-mails (server/src/mail/texts.ts): `{{name}}` placeholders, and plural forms as key_one,
// key_few, key_other… chosen with Intl.PluralRules.

/** The BCP 47 tag of a Kith language code, for `<html lang>` and Intl: `pt_BR` → `pt-BR`, `zh_Hans` → `zh-Hans`. */
export function bcp47(lang: string): string {
  return lang.replace('_', '-');
}

/**
 * Plural rules of the languages some runtimes lack (Intl.PluralRules then silently uses the
 * runtime's default locale, whose categories the texts do not have). Tamazight: the singular for
 * one, the plural otherwise, as the zgh texts are written (docs/decisions.md).
 */
const OWN_PLURAL_RULES: Readonly<Record<string, { categories: string[]; select: (n: number) => string }>> = {
  zgh: { categories: ['one', 'other'], select: (n) => (n === 1 ? 'one' : 'other') },
};

const pluralRules = new Map<string, (count: number) => string>();

function pluralSelector(lang: string): (count: number) => string {
  let select = pluralRules.get(lang);
  if (select === undefined) {
    const own = OWN_PLURAL_RULES[lang];
    if (own !== undefined && Intl.PluralRules.supportedLocalesOf(bcp47(lang)).length === 0) select = own.select;
    else {
      const rules = new Intl.PluralRules(bcp47(lang));
      select = (count) => rules.select(count);
    }
    pluralRules.set(lang, select);
  }
  return select;
}

/** The plural category of `count` in `lang`: `one`, `few`, `other`… */
export function pluralCategory(lang: string, count: number): string {
  return pluralSelector(lang)(count);
}

/** The plural categories a text of `lang` must have, whatever the runtime (for the locale check). */
export function pluralCategories(lang: string): string[] {
  const own = OWN_PLURAL_RULES[lang];
  if (own !== undefined) return own.categories;
  return new Intl.PluralRules(bcp47(lang)).resolvedOptions().pluralCategories;
}

/**
 * The text of `key` for `lang`: its own first, then en_US's, so a reader stays in their language
 * whenever it has the text in any form. In each language, with a `count`, its plural form for that
 * count, then `_other`, then the plain key. `find` reads one language's text, undefined when missing.
 */
export function findText(
  lang: string,
  key: string,
  count: number | undefined,
  find: (lang: string, key: string) => string | undefined,
): string | undefined {
  for (const code of lang === FALLBACK_LANGUAGE ? [lang] : [lang, FALLBACK_LANGUAGE]) {
    const text =
      (count === undefined
        ? undefined
        : (find(code, `${key}_${pluralCategory(code, count)}`) ?? find(code, `${key}_other`))) ?? find(code, key);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** Fills the `{{name}}` placeholders of a text; one without a value stays as written. */
export function fillPlaceholders(text: string, values: Readonly<Record<string, unknown>>): string {
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? String((values[name] as string | number | null | undefined) ?? '') : whole,
  );
}
