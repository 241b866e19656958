/**
 * What a reaction may be (issue 20): exactly one emoji, as one grapheme. The server refuses
 * anything else with `invalid_reaction`; the web client's picker only offers what passes.
 */

/** A reaction's length in UTF-8 bytes, at most: the longest ZWJ sequences with skin tones are about 35. */
export const REACTION_MAX_BYTES = 64;

// One pictograph with an optional presentation selector or skin tone, and optional tag characters
// (the subdivision flags such as England's); a flag (two regional indicators); or a keycap.
const PICTOGRAPH = String.raw`\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})?(?:[\u{E0020}-\u{E007E}]+\u{E007F})?`;
const ELEMENT = String.raw`(?:${PICTOGRAPH}|\p{Regional_Indicator}{2}|[#*0-9]\uFE0F?\u20E3)`;
// Elements joined by zero-width joiners (families, professions, 🏳️‍🌈) make one emoji.
const EMOJI = new RegExp(String.raw`^${ELEMENT}(?:\u200D${ELEMENT})*$`, 'u');

let segmenter: Intl.Segmenter | undefined;

/** The number of user-perceived characters in `value`. */
export function graphemeCount(value: string): number {
  segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  let count = 0;
  for (const _ of segmenter.segment(value)) count += 1;
  return count;
}

/** Whether `value` is one emoji that may be used as a reaction. */
export function isReactionEmoji(value: unknown): value is string {
  if (typeof value !== 'string' || value === '') return false;
  if (new TextEncoder().encode(value).length > REACTION_MAX_BYTES) return false;
  return EMOJI.test(value) && graphemeCount(value) === 1;
}
