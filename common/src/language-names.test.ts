import { describe, expect, it } from 'vitest';
import { LANGUAGES } from './i18n.js';
import { LANGUAGE_NAMES } from './language-names.js';

describe('LANGUAGE_NAMES', () => {
  it('names every offered language, each differently, and nothing else', () => {
    expect(Object.keys(LANGUAGE_NAMES).sort()).toEqual([...LANGUAGES].sort());
    const names = Object.values(LANGUAGE_NAMES);
    expect(names.every((name) => name.trim() !== '')).toBe(true);
    expect(new Set(names).size).toBe(LANGUAGES.length);
  });

  it('names languages in themselves, not in English', () => {
    expect(LANGUAGE_NAMES.de_DE).toBe('Deutsch');
    expect(LANGUAGE_NAMES.fr_FR).toBe('Français');
    expect(LANGUAGE_NAMES.ko_KR).toBe('한국어');
    expect(LANGUAGE_NAMES.ta_IN).toBe('தமிழ்');
    expect(LANGUAGE_NAMES.zgh).toBe('ⵜⴰⵎⴰⵣⵉⵖⵜ');
    expect(LANGUAGE_NAMES.zh_Hans).toBe('简体中文');
  });
});
