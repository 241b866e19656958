// Interface texts live in locales/<lang>.json under "web" (shared with the e-mails, which use
// "mail"). Only the language in use is downloaded; en_US is always loaded as the fallback.
import { useSyncExternalStore } from 'react';
import { FALLBACK_LANGUAGE, isOfferedLanguage } from '@kith/common';
import { loadTifinagh } from './scripts';
import { type Texts, type TFunction, bcp47, translator } from './translate';

export { bcp47, type TFunction };

// The 15 languages' files; same-as-english.json (a list for the locale check) is no language.
const loaders = import.meta.glob<Texts>(['../../../locales/*.json', '!../../../locales/same-as-english.json'], {
  import: 'web',
});
const texts: Record<string, Texts> = {};

async function loadTexts(lang: string): Promise<void> {
  texts[lang] ??= (await loaders[`../../../locales/${lang}.json`]?.()) ?? {};
}

/** The interface language and its translate function, for code outside components. */
export const i18n: { language: string; t: TFunction } = {
  language: FALLBACK_LANGUAGE,
  t: translator(FALLBACK_LANGUAGE, texts),
};

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * The translate function for components, which render again when the language changes. `t` is a
 * new function then, so effects and callbacks that depend on it run again.
 */
export function useTranslation(): { t: TFunction; i18n: typeof i18n } {
  return { t: useSyncExternalStore(subscribe, () => i18n.t), i18n };
}

/** Switches the interface language (an unknown code falls back to en_US). */
export async function setLanguage(lang: string | null | undefined): Promise<void> {
  const code = lang && isOfferedLanguage(lang) ? lang : FALLBACK_LANGUAGE;
  await Promise.all([loadTexts(FALLBACK_LANGUAGE), loadTexts(code), code === 'zgh' ? loadTifinagh() : undefined]);
  if (i18n.language !== code) {
    i18n.language = code;
    i18n.t = translator(code, texts);
    for (const listener of listeners) listener();
  }
  document.documentElement.lang = bcp47(code);
}

/** Loads the texts of the page's default language (meta tag), falling back to en_US. */
export async function initI18n(defaultLang: string): Promise<void> {
  await setLanguage(defaultLang);
}
