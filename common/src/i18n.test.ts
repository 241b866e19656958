import { describe, expect, it } from 'vitest';
import { bcp47, fillPlaceholders, findText } from './i18n.js';

const files: Record<string, Record<string, string>> = {
  en_US: { photos_one: '{{count}} photo', photos_other: '{{count}} photos', hello: 'Hello', only_en: 'English' },
  // Czech has a `few` form; `files` has no plural forms here, only its plain text.
  cs_CZ: {
    photos_one: '{{count}} fotka',
    photos_few: '{{count}} fotky',
    photos_other: '{{count}} fotek',
    files: 'Soubory',
  },
};
const find = (lang: string, key: string) => files[lang]?.[key];

describe('texts of locales/<lang>.json', () => {
  it('gives Intl its BCP 47 tags', () => {
    expect(bcp47('pt_BR')).toBe('pt-BR');
    expect(bcp47('zh_Hans')).toBe('zh-Hans');
    expect(bcp47('zgh')).toBe('zgh');
  });

  it("chooses the language's own plural form for a count", () => {
    expect(findText('cs_CZ', 'photos', 1, find)).toBe('{{count}} fotka');
    expect(findText('cs_CZ', 'photos', 3, find)).toBe('{{count}} fotky');
    expect(findText('cs_CZ', 'photos', 7, find)).toBe('{{count}} fotek');
    expect(findText('en_US', 'photos', 3, find)).toBe('{{count}} photos');
  });

  it('stays in the reader’s language when it has the text in any form, else uses English', () => {
    expect(findText('cs_CZ', 'files', 2, find)).toBe('Soubory');
    expect(findText('cs_CZ', 'only_en', undefined, find)).toBe('English');
    expect(findText('cs_CZ', 'missing', 2, find)).toBeUndefined();
  });

  it('fills placeholders that have a value and leaves the others as written', () => {
    expect(fillPlaceholders('{{ count }} of {{name}}: {{other}}', { count: 3, name: 'Ana' })).toBe(
      '3 of Ana: {{other}}',
    );
    expect(fillPlaceholders('by {{name}}', { name: null })).toBe('by ');
  });
});
