import { plainText, type SearchAnswer, type SearchMessage, type SearchSnippet } from '@kith/common';
import { toSeconds } from '../../lib/clock.js';
import type { HitMessage } from '../../search/search-index.js';
import { foldCodePoint, matchingTokens, normalizeText } from '../../search/terms.js';

/** The terms a snippet highlights: word terms (prefixes) and hashtag terms (exact, without `#`). */
export interface HighlightTerms {
  words: string[];
  hashtags: string[];
}

/** The `searchterms` of an answer back as terms to highlight: hashtag terms are the ones with `#`. */
export function highlightTerms(searchterms: string[]): HighlightTerms {
  return {
    words: searchterms.filter((term) => !term.startsWith('#')),
    hashtags: searchterms.filter((term) => term.startsWith('#')).map((term) => term.slice(1)),
  };
}

/** About this many UTF-16 units of text in a snippet (ellipses aside). */
export const SNIPPET_LENGTH = 160;
/** Text kept before the first match when the snippet starts later in the text. */
const LEAD = 40;
const ELLIPSIS = '…';

interface Range {
  start: number;
  end: number;
}

/** Text is matched in pieces of about this many UTF-16 units, each ending before a space. */
const PIECE = 256;
const BEYOND_ASCII = /[\u0080-\uffff]/;

/**
 * The ranges of one piece of a text, moved by `offset`. Matching runs on the normalized copy
 * (accents stripped, case folded). Most pieces of a hit hold no term, so they are only folded and
 * looked through; for a piece that matches, its code points are walked again (their folds are
 * remembered) so that every normalized unit knows the original code point it came from (a stripped
 * accent that followed a letter stays inside that letter's range). ASCII folds to its lower case unit for unit, so it
 * needs no such map.
 */
function pieceRanges(piece: string, offset: number, terms: HighlightTerms): Range[] {
  if (!BEYOND_ASCII.test(piece)) {
    return matchingTokens(piece.toLowerCase(), terms).map((token) => ({
      start: offset + token.start,
      end: offset + token.end,
    }));
  }
  const tokens = matchingTokens(normalizeText(piece), terms);
  if (tokens.length === 0) return [];
  const starts: number[] = [];
  const ends: number[] = [];
  let at = offset;
  for (const ch of piece) {
    const folded = foldCodePoint(ch);
    if (folded === '' && ends.length > 0 && ends[ends.length - 1] === at) ends[ends.length - 1] = at + ch.length;
    for (let i = 0; i < folded.length; i += 1) {
      starts.push(at);
      ends.push(at + ch.length);
    }
    at += ch.length;
  }
  return tokens.map((token) => ({
    start: starts[token.start] ?? offset,
    end: ends[token.end - 1] ?? offset + piece.length,
  }));
}

/**
 * The ranges of `flat` (UTF-16 offsets; white space already one space) holding words the terms
 * match. The text is read in pieces that start at a space, which folds to itself and ends every
 * token, so each piece matches exactly as the whole text would. A snippet needs only the matches up
 * to `span` units after the first one: reading stops there instead of folding a long text to its end.
 */
export function matchRanges(flat: string, terms: HighlightTerms, span = Infinity): Range[] {
  const ranges: Range[] = [];
  let from = 0;
  while (from < flat.length && (ranges[0] === undefined || from < ranges[0].start + span)) {
    const space = flat.indexOf(' ', from + PIECE);
    const to = space === -1 ? flat.length : space;
    ranges.push(...pieceRanges(flat.slice(from, to), from, terms));
    from = to;
  }
  return ranges;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** A window of about 160 units of `flat` around `matchStart`, cut at spaces where it can be. */
function window(flat: string, matchStart: number): Range {
  if (flat.length <= SNIPPET_LENGTH) return { start: 0, end: flat.length };
  const wordStartFrom = (from: number, limit: number): number => {
    if (from <= 0) return 0;
    // A space just before `from` means it already starts a word.
    const space = flat.indexOf(' ', from - 1);
    return space !== -1 && space < limit ? space + 1 : limit;
  };
  let start = wordStartFrom(Math.max(0, matchStart - LEAD), matchStart);
  let end = Math.min(flat.length, start + SNIPPET_LENGTH);
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    if (space > matchStart) end = space;
  } else if (start > 0) {
    // The window reaches the end: use the room left for more text before the match.
    start = Math.min(start, wordStartFrom(flat.length - SNIPPET_LENGTH, start));
  }
  if (start < flat.length && isLowSurrogate(flat.charCodeAt(start))) start += 1;
  if (end > start && end < flat.length && isHighSurrogate(flat.charCodeAt(end - 1))) end -= 1;
  return { start, end };
}

/** The excerpt of `flat` around `matchStart`, with `…` where cut and the ranges moved into it. */
function excerpt(flat: string, ranges: Range[], matchStart: number): SearchSnippet {
  const { start, end } = window(flat, matchStart);
  const before = start > 0 ? ELLIPSIS : '';
  const after = end < flat.length ? ELLIPSIS : '';
  const shift = before.length - start;
  return {
    text: `${before}${flat.slice(start, end)}${after}`,
    highlights: ranges
      .filter((range) => range.start >= start && range.end <= end)
      .map((range): [number, number] => [range.start + shift, range.end + shift]),
  };
}

/**
 * The snippet of a result (docs/api §6.8): plain text of about 160 characters around the first
 * match in the text, else in the title, else the start of the text (or title). White space runs
 * become one space. `highlights` are `[start, end)` UTF-16 offsets into the snippet's text.
 */
export function buildSnippet(title: string | null, text: string | null, terms: HighlightTerms): SearchSnippet {
  // Without the `u` flag: `\s` is the same set either way, and the plain form is faster. Only runs
  // that are not already one space are replaced: replacing every space cost 10 µs a message of
  // 740 characters, a third of its snippet.
  const flatten = (s: string | null) => (s ?? '').replace(/\s\s+|[^\S ]/g, ' ').trim();
  let first: string | null = null;
  for (const source of [text, title]) {
    const flat = flatten(source);
    if (flat === '') continue;
    first ??= flat;
    const ranges = matchRanges(flat, terms, SNIPPET_LENGTH);
    if (ranges[0] !== undefined) return excerpt(flat, ranges, ranges[0].start);
  }
  return excerpt(first ?? '', [], 0);
}

/** One result (docs/api §6.8): ids as plain strings, `""` when empty; `children` a count. */
export function presentSearchMessage(row: HitMessage, score: number, terms: HighlightTerms): SearchMessage {
  return {
    id: row.id,
    entityType: 'message' as const,
    data: { title: row.title ?? '', text: row.text ?? '' },
    author: row.author_id ?? '',
    // Files and link previews come with later work; the card picture is empty until then.
    preview: '',
    parent: row.parent_id ?? '',
    children: row.children,
    createdAt: toSeconds(row.created_at),
    lastActivityDate: toSeconds(row.last_activity_date),
    score,
    // The snippet quotes the text as read, without its formatting markers (common/src/markup.ts).
    snippet: buildSnippet(row.title, row.text === null ? null : plainText(row.text), terms),
  };
}

/** The answer: results in the index's order, the count of all matches, the terms used. */
export function presentSearchAnswer(
  messages: SearchMessage[],
  total: number,
  searchterms: string[],
  older: number | null,
): SearchAnswer {
  return { messages, totalItems: total, searchterms, older };
}
