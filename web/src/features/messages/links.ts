import { markupLinks } from '@kith/common';

/**
 * Links inside message text: the first one, and shortening long texts for display.
 * Lengths count code points so an emoji or other astral character is never cut in half.
 */

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

/**
 * The first link of a text (its preview is the message's card), exactly as the server finds it
 * (server/src/lib/urls.ts, through the same parser of common/src/markup.ts): the target of a
 * `[text](url)` link, or a bare URL without trailing punctuation. The link preview endpoint checks
 * public grants by comparing with the URLs the server finds, so the client asks for this very string.
 */
export function firstUrl(text: string): string | null {
  return markupLinks(text, true)[0] ?? null;
}
