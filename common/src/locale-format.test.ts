import { describe, expect, it } from 'vitest';
import { pluralCategories, pluralCategory } from './i18n.js';
import { formatDate, formatNumber, formatTimeAgo } from './locale-format.js';
import { formatByteSize, formatList } from './locale-format-more.js';

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

describe('sizes in bytes', () => {
  it('writes a size with the locale’s unit and digits, in steps of 1024', () => {
    expect(formatByteSize('en_US', 0)).toBe('0 kB');
    expect(formatByteSize('en_US', 512)).toBe('0.5 kB');
    expect(formatByteSize('en_US', 1536)).toBe('1.5 kB');
    expect(formatByteSize('en_US', 5 * 1024 ** 3)).toBe('5 GB');
    expect(formatByteSize('en_US', 1.25 * 1024 ** 3)).toBe('1.3 GB');
    expect(formatByteSize('en_US', 300 * 1024 ** 2)).toBe('300 MB');
    expect(formatByteSize('fr_FR', 1.25 * 1024 ** 3)).toBe('1,3\u202fGo');
    expect(formatByteSize('de_DE', 1.25 * 1024 ** 3)).toBe('1,3\u00a0GB');
  });

  it('falls back on digits and the international symbol without the locale', () => {
    expect(formatByteSize('xx_XX', 1.25 * 1024 ** 3)).toBe('1.3 GB');
  });
});
