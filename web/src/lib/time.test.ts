import { describe, expect, it } from 'vitest';
import { formatRelativeTime, relativeTime } from './time.ts';

const now = Date.UTC(2024, 5, 15, 12, 0, 0);
const ago = (ms: number) => (now - ms) / 1000;

describe('relativeTime', () => {
  it('is now under one minute', () => {
    expect(relativeTime(ago(0), now)).toEqual({ kind: 'now' });
    expect(relativeTime(ago(59_999), now)).toEqual({ kind: 'now' });
  });

  it('treats future timestamps as now', () => {
    expect(relativeTime(ago(-3_600_000), now)).toEqual({ kind: 'now' });
  });

  it('counts whole minutes from 1 to 59', () => {
    expect(relativeTime(ago(60_000), now)).toEqual({ kind: 'minutes', count: 1 });
    expect(relativeTime(ago(119_999), now)).toEqual({ kind: 'minutes', count: 1 });
    expect(relativeTime(ago(3_599_999), now)).toEqual({ kind: 'minutes', count: 59 });
  });

  it('counts whole hours from 1 to 23', () => {
    expect(relativeTime(ago(3_600_000), now)).toEqual({ kind: 'hours', count: 1 });
    expect(relativeTime(ago(86_399_999), now)).toEqual({ kind: 'hours', count: 23 });
  });

  it('gives the date from 24 hours on', () => {
    const rel = relativeTime(ago(86_400_000), now);
    expect(rel.kind).toBe('date');
    if (rel.kind === 'date') expect(rel.date.getTime()).toBe(now - 86_400_000);
  });

  it('accepts fractional epoch seconds', () => {
    expect(relativeTime(now / 1000 - 60.5, now)).toEqual({ kind: 'minutes', count: 1 });
  });
});

describe('formatRelativeTime', () => {
  const t = (key: string, opts?: Record<string, unknown>) => (opts ? `${key}:${JSON.stringify(opts)}` : key);
  const date = new Date(Date.UTC(2024, 0, 15, 12, 0, 0));

  it('says "just now" with our text, minutes and hours in the locale’s own words', () => {
    expect(formatRelativeTime({ kind: 'now' }, t, 'ru_RU')).toBe('time.just_now');
    expect(formatRelativeTime({ kind: 'minutes', count: 5 }, t, 'ru_RU')).toBe('5 минут назад');
    expect(formatRelativeTime({ kind: 'minutes', count: 1 }, t, 'en_US')).toBe('1 minute ago');
    expect(formatRelativeTime({ kind: 'hours', count: 3 }, t, 'ko_KR')).toBe('3시간 전');
  });

  it('uses our translated texts where the runtime lacks the locale or has only its root data', () => {
    expect(formatRelativeTime({ kind: 'minutes', count: 5 }, t, 'xx_XX')).toBe('time.minutes:{"count":5}');
    expect(formatRelativeTime({ kind: 'hours', count: 3 }, t, 'xx_XX')).toBe('time.hours:{"count":3}');
    // Tamazight: never ICU's root "-5 min".
    expect(formatRelativeTime({ kind: 'minutes', count: 5 }, t, 'zgh')).not.toMatch(/^-|\bmin\b/);
  });

  it('formats dates in the medium style of the locale', () => {
    const expected = new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium' }).format(date);
    expect(formatRelativeTime({ kind: 'date', date }, t, 'de_DE')).toBe(expected);
    expect(expected).toContain('2024');
  });

  it('writes the date with digits only where the runtime lacks the locale', () => {
    expect(formatRelativeTime({ kind: 'date', date }, t, 'xx_XX')).toBe('2024-01-15');
  });
});
