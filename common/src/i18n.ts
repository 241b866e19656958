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
