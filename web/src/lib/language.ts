// Which language the interface speaks before (or without) a signed-in user's own `data.lang`:
// the one picked on this device (the language picker of the sign-in pages, remembered in local
// storage), else, when the operator allows it (LANG_FROM_BROWSER), the browser's preferred
// languages, else the instance's DEFAULT_LANG, else en_US. docs/decisions.md explains the order.
import { FALLBACK_LANGUAGE, isOfferedLanguage, type Language } from '@kith/common';
import { DEFAULT_LANG } from './config';
import { storage } from './storage';

/** The local-storage key of the device's language; logout keeps it (lib/session.ts). */
export const LANGUAGE_KEY = 'lang';

// The best of the browser's languages (LANG_FROM_BROWSER), matched once at start-up by main.tsx
// with lib/browserLanguage.ts, a module loaded only when the operator allows it.
let browserChoice: Language | undefined;

/** Records the browser's best offered language, for `deviceLanguage`. */
export function setBrowserLanguage(lang: Language | undefined): void {
  browserChoice = lang;
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
  if (browserChoice !== undefined) return browserChoice;
  return isOfferedLanguage(DEFAULT_LANG) ? DEFAULT_LANG : FALLBACK_LANGUAGE;
}

/** Remembers the language on this device, for the sign-in pages of the next visit and after logout. */
export function rememberLanguage(lang: Language): void {
  storage.set(LANGUAGE_KEY, lang);
}
