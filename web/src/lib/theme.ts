// The colour scheme: the system's by default, or light or dark as chosen in the account settings
// (`data.theme`). global.css holds both palettes; this only sets `<html data-theme>`, which the
// palettes key on, and `color-scheme`, so form controls and scroll bars follow.

/** What a person can choose; `system` follows `prefers-color-scheme`. */
export type ThemeChoice = 'system' | 'light' | 'dark';

export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];

/** Narrows a stored value (anything the server kept) to a choice, `system` when unknown. */
export function themeChoice(value: unknown): ThemeChoice {
  return value === 'light' || value === 'dark' ? value : 'system';
}

/** Applies a choice to the document at once. */
export function applyTheme(choice: ThemeChoice): void {
  const root = document.documentElement;
  if (choice === 'system') delete root.dataset.theme;
  else root.dataset.theme = choice;
}
