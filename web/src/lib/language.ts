// Which language the interface speaks before (or without) a signed-in user's own `data.lang`:
// the one picked on this device (the language picker of the sign-in pages, remembered in local
// storage), else, when the operator allows it (LANG_FROM_BROWSER), the browser's preferred
// languages, else the instance's DEFAULT_LANG, else en_US. docs/decisions.md explains the order.
import { FALLBACK_LANGUAGE, isOfferedLanguage, LANGUAGES, type Language } from '@kith/common';
import { DEFAULT_LANG, LANG_FROM_BROWSER } from './config';
import { storage } from './storage';

/** The local-storage key of the device's language; logout keeps it (lib/session.ts). */
export const LANGUAGE_KEY = 'lang';

// Chinese written in traditional characters: a reader of zh-TW is not served by zh_Hans texts
// better than by the default language, so such a preference is skipped.
const TRADITIONAL = new Set(['hant', 'tw', 'hk', 'mo']);

/**
 * The offered language closest to a browser's preferences (BCP 47 tags, best first): an exact
 * match (pt-BR → pt_BR), else the same language in another region (pt-PT → pt_BR, de-AT → de_DE,
 * zh-CN → zh_Hans, no/nn → nb_NO).
 */
export function matchBrowserLanguage(preferences: readonly string[]): Language | undefined {
  for (const tag of preferences) {
    const parts = tag.toLowerCase().split(/[-_]/);
    const primary = parts[0] ?? '';
    const exact = LANGUAGES.find((lang) => lang.toLowerCase().replace('_', '-') === parts.join('-'));
    if (exact !== undefined) return exact;
    if (primary === 'zh') {
      if (parts.slice(1).some((part) => TRADITIONAL.has(part))) continue;
      return 'zh_Hans';
    }
    if (primary === 'no' || primary === 'nn') return 'nb_NO';
    const same = LANGUAGES.find((lang) => lang.split('_')[0] === primary);
    if (same !== undefined) return same;
  }
  return undefined;
}

/** The language picked on this device (or remembered from its last user), null when none was. */
export function pickedLanguage(): Language | null {
  const chosen = storage.get<string>(LANGUAGE_KEY);
  return chosen !== null && isOfferedLanguage(chosen) ? chosen : null;
}

/** The interface language for a visitor, or for a user who has chosen none. */
export function deviceLanguage(): Language {
  const chosen = pickedLanguage();
  if (chosen !== null) return chosen;
  if (LANG_FROM_BROWSER && typeof navigator !== 'undefined') {
    const browser = matchBrowserLanguage(navigator.languages);
    if (browser !== undefined) return browser;
  }
  return isOfferedLanguage(DEFAULT_LANG) ? DEFAULT_LANG : FALLBACK_LANGUAGE;
}

/** Remembers the language on this device, for the sign-in pages of the next visit and after logout. */
export function rememberLanguage(lang: Language): void {
  storage.set(LANGUAGE_KEY, lang);
}
