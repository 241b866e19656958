// Interface texts live in locales/<lang>.json under "web" (shared with the e-mails, which use
// "mail"). Only the language in use is downloaded; en_US is always loaded as the fallback.
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { FALLBACK_LANGUAGE, isOfferedLanguage } from '@kith/common';

type Texts = Record<string, unknown>;
const loaders = import.meta.glob<Texts>('../../../locales/*.json', { import: 'web' });

async function loadTexts(lang: string): Promise<void> {
  if (i18n.hasResourceBundle(lang, 'web')) return;
  const load = loaders[`../../../locales/${lang}.json`];
  i18n.addResourceBundle(lang, 'web', (await load?.()) ?? {});
}

/** BCP 47 tag of a Kith language code, for `<html lang>` and Intl (zh_Hans → zh-Hans). */
export function bcp47(lang: string): string {
  return lang.replace('_', '-');
}

/** Switches the interface language (an unknown code falls back to en_US). */
export async function setLanguage(lang: string | null | undefined): Promise<void> {
  const code = lang && isOfferedLanguage(lang) ? lang : FALLBACK_LANGUAGE;
  await Promise.all([loadTexts(FALLBACK_LANGUAGE), loadTexts(code)]);
  if (i18n.language !== code) await i18n.changeLanguage(code);
  document.documentElement.lang = bcp47(code);
}

/** Starts i18next with the page's default language (meta tag), falling back to en_US. */
export async function initI18n(defaultLang: string): Promise<void> {
  await i18n.use(initReactI18next).init({
    lng: FALLBACK_LANGUAGE,
    fallbackLng: FALLBACK_LANGUAGE,
    ns: ['web'],
    defaultNS: 'web',
    load: 'currentOnly',
    resources: {},
    partialBundledLanguages: true,
    interpolation: { escapeValue: false }, // React escapes
    returnNull: false,
  });
  await setLanguage(defaultLang);
}

export { i18n };
