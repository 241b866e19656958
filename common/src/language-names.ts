import type { Language } from './i18n.js';

/**
 * Each language named in itself, as a language picker shows it: a reader looks for their own
 * language by the name they know, whatever language the interface is in at the moment. A module of
 * its own, so the web client loads it with the settings screen only, not with every page.
 */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = {
  cs_CZ: 'Čeština',
  de_DE: 'Deutsch',
  en_US: 'English',
  es_ES: 'Español',
  fr_FR: 'Français',
  hu_HU: 'Magyar',
  ko_KR: '한국어',
  nb_NO: 'Norsk bokmål',
  nl_NL: 'Nederlands',
  pt_BR: 'Português (Brasil)',
  ru_RU: 'Русский',
  sk_SK: 'Slovenčina',
  ta_IN: 'தமிழ்',
  zgh: 'ⵜⴰⵎⴰⵣⵉⵖⵜ',
  zh_Hans: '简体中文',
};
