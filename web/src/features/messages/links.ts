/**
 * Links inside message text: finding them, and shortening long texts for display.
 * Lengths count code points so an emoji or other astral character is never cut in half.
 */

/** A piece of message text: plain text, or a URL to render as a link. */
export type TextPart = { type: 'text'; text: string } | { type: 'link'; url: string };

const LINK_MAX = 50;
const LINK_HEAD = 25;
const LINK_TAIL = 24;

/** Shortens a link's visible text over 50 characters to its first 25 and last 24 around '…'. */
export function shortenLinkText(url: string): string {
  const chars = Array.from(url);
  if (chars.length <= LINK_MAX) return url;
  return chars.slice(0, LINK_HEAD).join('') + '…' + chars.slice(-LINK_TAIL).join('');
}

/** Cuts text longer than `max` characters to its first `max` (trailing spaces dropped) plus '…'. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return chars.slice(0, Math.max(0, max)).join('').trimEnd() + '…';
}

// The API's link rule (docs/api §1.10): http(s):// up to whitespace or a square bracket.
const URL_RUN = /https?:\/\/[^\s[\]]+/g;
// Needs something after the scheme, or it is just the word "https://".
const HAS_HOST = /^https?:\/\/./;
// Sentence punctuation right after a URL belongs to the sentence.
const TRAILING_PUNCTUATION = '.,;:!?';

/** Drops trailing sentence punctuation and an unbalanced closing parenthesis from a URL run. */
function trimUrl(run: string): string {
  let url = run;
  for (;;) {
    const last = url.at(-1);
    if (last === undefined) return url;
    // "(see https://example.com)" must not link the ")", but Wikipedia-style "Foo_(bar)" must keep it.
    const strayParen = last === ')' && !url.includes('(');
    if (!TRAILING_PUNCTUATION.includes(last) && !strayParen) return url;
    url = url.slice(0, -1);
  }
}

/** Splits text into plain and link parts; joining every part's text or url gives the input back. */
export function splitLinks(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let pending = '';
  let cursor = 0;
  for (const match of text.matchAll(URL_RUN)) {
    const url = trimUrl(match[0]);
    if (!HAS_HOST.test(url)) continue;
    pending += text.slice(cursor, match.index);
    if (pending !== '') parts.push({ type: 'text', text: pending });
    parts.push({ type: 'link', url });
    pending = '';
    cursor = match.index + url.length;
  }
  pending += text.slice(cursor);
  if (pending !== '') parts.push({ type: 'text', text: pending });
  return parts;
}

// Exactly the server's rule (server/src/features/links/urls.ts): only space and newline end the
// run, a leading "(" and one trailing ")" are dropped. The link preview endpoint checks public
// grants by comparing with this URL, so the client must ask for the very same string.
const SERVER_URL_RUN = /\(?https?:\/\/[^ \n[\]]*/g;

/** The first URL of a text exactly as the server finds it (its preview is the message's card), or null. */
export function firstUrl(text: string): string | null {
  for (const match of text.matchAll(SERVER_URL_RUN)) {
    let url = match[0];
    if (url.startsWith('(')) url = url.slice(1);
    if (url.endsWith(')')) url = url.slice(0, -1);
    if (HAS_HOST.test(url)) return url;
  }
  return null;
}
