import { describe, expect, it } from 'vitest';
import { graphemeCount, isReactionEmoji, REACTION_MAX_BYTES } from './reactions.js';

describe('isReactionEmoji (issue 20)', () => {
  it('accepts one emoji: plain, with a presentation selector, skin tones, flags, keycaps, ZWJ sequences', () => {
    for (const emoji of ['👍', '❤️', '❤', '😂', '👍🏽', '🇫🇷', '🇯🇵', '#️⃣', '1️⃣', '*️⃣', '👨‍👩‍👧‍👦', '🏳️‍🌈', '👩🏾‍💻', '🧑🏻‍🤝‍🧑🏿', '🏴󠁧󠁢󠁳󠁣󠁴󠁿']) {
      expect(isReactionEmoji(emoji), emoji).toBe(true);
    }
  });

  it('refuses text, several emoji, spaces, parts of an emoji and what is not a string', () => {
    const refused: unknown[] = [
      '',
      'a',
      'ok',
      '1',
      '#',
      ' ',
      '👍 ',
      ' 👍',
      '👍👍',
      '🇫🇷🇩🇪',
      '👍a',
      'é',
      '\u200D',
      '🇫',
      '🏽',
      '\uFE0F',
      '👍\u200D',
      'x'.repeat(100),
      5,
      null,
      undefined,
      ['👍'],
      { e: '👍' },
    ];
    for (const value of refused) expect(isReactionEmoji(value), JSON.stringify(value)).toBe(false);
  });

  it('refuses an over-long sequence even when it would form one grapheme', () => {
    const long = Array.from({ length: 12 }, () => '👨').join('\u200D');
    expect(new TextEncoder().encode(long).length).toBeGreaterThan(REACTION_MAX_BYTES);
    expect(isReactionEmoji(long)).toBe(false);
  });

  it('counts graphemes as people see them', () => {
    expect(graphemeCount('👨‍👩‍👧')).toBe(1);
    expect(graphemeCount('🇫🇷🇩🇪')).toBe(2);
    expect(graphemeCount('ab')).toBe(2);
  });
});
