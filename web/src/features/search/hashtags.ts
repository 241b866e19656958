/** A piece of message text: plain, or a hashtag (`tag` without its "#"). */
export type HashtagPart = { type: 'text'; text: string } | { type: 'hashtag'; tag: string };

// The server's tokenizer (server/src/search/terms.ts): "#" then letters, digits or marks, and not
// glued to a word before it ("a#b" is no hashtag), so a linked tag is one the search finds.
const HASHTAG = /#[\p{L}\p{N}\p{M}]+/gu;
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

/** The character (code point) just before `index`, or "". */
function charBefore(text: string, index: number): string {
  const low = text.charCodeAt(index - 1);
  return text.slice(Math.max(0, index - (low >= 0xdc00 && low <= 0xdfff ? 2 : 1)), index);
}

/** Splits text into plain and hashtag parts; joining them (tags with their "#") gives the input back. */
export function splitHashtags(text: string): HashtagPart[] {
  const parts: HashtagPart[] = [];
  let cursor = 0;
  for (const match of text.matchAll(HASHTAG)) {
    if (WORD_CHAR.test(charBefore(text, match.index))) continue;
    if (match.index > cursor) parts.push({ type: 'text', text: text.slice(cursor, match.index) });
    parts.push({ type: 'hashtag', tag: match[0].slice(1) });
    cursor = match.index + match[0].length;
  }
  if (cursor < text.length) parts.push({ type: 'text', text: text.slice(cursor) });
  return parts;
}
