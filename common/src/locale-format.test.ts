import { describe, expect, it } from 'vitest';
import { pluralCategories, pluralCategory } from './i18n.js';
import { formatDate, formatNumber, formatTimeAgo } from './locale-format.js';
import { formatList } from './locale-format-more.js';

const joinTwo = (first: string, second: string) => `${first} + ${second}`;

describe('formatting by locale', () => {
  it('joins names as the locale does', () => {
    expect(formatList('en_US', ['Ann', 'Bob', 'Eve'], joinTwo)).toBe('Ann, Bob, and Eve');
    expect(formatList('fr_FR', ['Ann', 'Bob'], joinTwo)).toBe('Ann et Bob');
    expect(formatList('ru_RU', ['Аня', 'Боря'], joinTwo)).toBe('Аня и Боря');
  });

  it('joins names with the translated pair where the runtime has no list rules for the language', () => {
    expect(formatList('xx_XX', ['Ann', 'Bob'], joinTwo)).toBe('Ann + Bob');
    expect(formatList('xx_XX', ['Ann', 'Bob', 'Eve'], joinTwo)).toBe('Ann, Bob + Eve');
    expect(formatList('xx_XX', ['Ann'], joinTwo)).toBe('Ann');
  });

  it('writes numbers with the locale’s grouping', () => {
    expect(formatNumber('en_US', 12345)).toBe('12,345');
    expect(formatNumber('de_DE', 12345)).toBe('12.345');
    expect(formatNumber('xx_XX', 12345)).toBe('12345');
  });

  it('gives relative times in the locale’s words, or nothing to fall back on', () => {
    expect(formatTimeAgo('de_DE', 5, 'minute')).toBe('vor 5 Minuten');
    expect(formatTimeAgo('ta_IN', 2, 'hour')).toBe(new Intl.RelativeTimeFormat('ta-IN').format(-2, 'hour'));
    expect(formatTimeAgo('xx_XX', 5, 'minute')).toBeUndefined();
  });

  it('writes a date in the medium style, or with digits only without the locale', () => {
    const date = new Date(Date.UTC(2026, 10, 25, 12));
    expect(formatDate('de_DE', date)).toBe(new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium' }).format(date));
    expect(formatDate('xx_XX', date)).toBe('2026-11-25');
  });

  it('has plural rules for Tamazight whatever the runtime', () => {
    expect(pluralCategories('zgh')).toEqual(['one', 'other']);
    expect(pluralCategory('zgh', 1)).toBe('one');
    expect(pluralCategory('zgh', 3)).toBe('other');
    expect(pluralCategories('ru_RU').sort()).toEqual(['few', 'many', 'one', 'other']);
  });
});
