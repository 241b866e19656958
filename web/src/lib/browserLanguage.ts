// Matching a browser's preferred languages to the offered ones, for LANG_FROM_BROWSER: loaded by
// main.tsx only when the operator allows it, so other instances never download it.
import { LANGUAGES, type Language } from '@kith/common';

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
