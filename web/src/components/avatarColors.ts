/**
 * Placeholder avatars (product spec): a colour hashed from the user id across 27 colours, with
 * the first letter of the name on it in white.
 */

/**
 * 27 hues around the colour wheel, alternating two depths so neighbours stay distinguishable.
 * Each is dark enough for white text at WCAG AA (contrast ≥ 4.5:1), which the tests check.
 */
export const AVATAR_COLORS: readonly string[] = Object.freeze([
  '#d22d2d',
  '#9c3c21',
  '#aa6024',
  '#745519',
  '#7e731b',
  '#565f14',
  '#5d7e1b',
  '#396515',
  '#33821c',
  '#166916',
  '#1c8533',
  '#16673a',
  '#1c8260',
  '#15655c',
  '#1d7f8b',
  '#1c6082',
  '#2b73cc',
  '#2b4eca',
  '#2d2dd2',
  '#512dd2',
  '#762dd2',
  '#8927b9',
  '#be2cd0',
  '#9e2190',
  '#ce2c98',
  '#a8245f',
  '#d22d51',
]);

/** 32-bit FNV-1a over UTF-16 code units: tiny, fast and spreads similar ids apart. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The avatar colour of a user id; the same id always gets the same colour on every device. */
export function avatarColor(id: string): string {
  // The palette is a non-empty constant, so the index is always in range.
  return AVATAR_COLORS[fnv1a(id) % AVATAR_COLORS.length] as string;
}

const segmenter =
  typeof Intl !== 'undefined' && 'Segmenter' in Intl
    ? new Intl.Segmenter(undefined, { granularity: 'grapheme' })
    : null;

/** The first user-perceived character of a name, uppercased; '' for a missing or blank name. */
export function initial(name: string | null | undefined): string {
  const text = name?.trim() ?? '';
  if (text === '') return '';
  // Grapheme clusters keep flags, accented letters and emoji with modifiers whole.
  const first = segmenter
    ? (segmenter.segment(text)[Symbol.iterator]().next().value?.segment ?? '')
    : (Array.from(text)[0] ?? '');
  const upper = first.toUpperCase();
  // "ß" uppercases to "SS"; one letter on an avatar reads better than two.
  return Array.from(upper).length > Array.from(first).length ? first : upper;
}
