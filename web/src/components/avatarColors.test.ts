import { describe, expect, it } from 'vitest';
import { AVATAR_COLORS, avatarColor, initial } from './avatarColors.ts';

function luminance(hex: string): number {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (m === null) throw new Error(`not a #rrggbb colour: ${hex}`);
  const channel = (h: string) => {
    const c = parseInt(h, 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(m[1]!) + 0.7152 * channel(m[2]!) + 0.0722 * channel(m[3]!);
}

const contrastWithWhite = (hex: string) => 1.05 / (luminance(hex) + 0.05);

describe('AVATAR_COLORS', () => {
  it('has exactly 27 distinct colours', () => {
    expect(AVATAR_COLORS).toHaveLength(27);
    expect(new Set(AVATAR_COLORS.map((c) => c.toLowerCase())).size).toBe(27);
  });

  it('gives white text a contrast of at least 4.5:1 on every colour', () => {
    for (const color of AVATAR_COLORS) expect(contrastWithWhite(color), color).toBeGreaterThanOrEqual(4.5);
  });

  it('checks contrast correctly', () => {
    expect(contrastWithWhite('#000000')).toBeCloseTo(21, 5);
    expect(contrastWithWhite('#ffffff')).toBeCloseTo(1, 5);
    // #777777 is the classic just-failing grey.
    expect(contrastWithWhite('#777777')).toBeLessThan(4.5);
  });
});

describe('avatarColor', () => {
  it('is stable for the same id', () => {
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    expect(avatarColor(id)).toBe(avatarColor(id));
    expect(avatarColor(id)).toBe(avatarColor(String(id)));
  });

  it('always picks from the palette, including for empty and unusual ids', () => {
    for (const id of ['', 'a', 'ä', '😀', 'x'.repeat(1000)]) expect(AVATAR_COLORS).toContain(avatarColor(id));
  });

  it('spreads 1000 random UUIDs over at least 20 colours', () => {
    const used = new Set<string>();
    for (let i = 0; i < 1000; i++) used.add(avatarColor(crypto.randomUUID()));
    expect(used.size).toBeGreaterThanOrEqual(20);
  });

  it('spreads sequential ids too', () => {
    const used = new Set<string>();
    for (let i = 0; i < 200; i++) used.add(avatarColor(`user-${i}`));
    expect(used.size).toBeGreaterThanOrEqual(20);
  });
});

describe('initial', () => {
  it('uppercases the first letter', () => {
    expect(initial('alice')).toBe('A');
    expect(initial('émile')).toBe('É');
    expect(initial('  bob')).toBe('B');
  });

  it('returns an empty string for missing or blank names', () => {
    expect(initial('')).toBe('');
    expect(initial('   ')).toBe('');
    expect(initial(null)).toBe('');
    expect(initial(undefined)).toBe('');
  });

  it('keeps a whole grapheme cluster', () => {
    expect(initial('e\u0301mile')).toBe('E\u0301');
    expect(initial('👍🏽 fan')).toBe('👍🏽');
    expect(initial('🇫🇷 team')).toBe('🇫🇷');
    expect(initial('😀')).toBe('😀');
  });

  it('keeps letters whose uppercase is longer', () => {
    expect(initial('ßtraße')).toBe('ß');
  });

  it('leaves scripts without case alone', () => {
    expect(initial('김민수')).toBe('김');
    expect(initial('அருண்')).toBe('அ');
  });
});
