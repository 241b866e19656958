/**
 * Search terms and text normalization shared by both index implementations and the snippet builder
 * (docs/api §10.7). One tokenizer in JavaScript decides what a word and a hashtag are, so SQLite and
 * PostgreSQL see the same tokens and match the same messages.
 */

/** At most this many terms are used (docs/api §10.7). */
export const MAX_TERMS = 10;
/** Each term is cut to this many UTF-16 units. */
export const MAX_TERM_LENGTH = 64;

// Accents are the combining marks of these blocks (diacritical marks, their extensions and
// supplement, marks for symbols, half marks). Other marks (Indic vowel signs, Arabic harakat…) are
// part of the letters they sit on and are kept.
const DIACRITIC_BLOCKS: [number, number][] = [
  [0x0300, 0x036f],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x20d0, 0x20ff],
  [0xfe20, 0xfe2f],
];

function withoutDiacritics(decomposed: string): string {
  let out = '';
  for (const ch of decomposed) {
    const code = ch.codePointAt(0) ?? 0;
    if (!DIACRITIC_BLOCKS.some(([from, to]) => code >= from && code <= to)) out += ch;
  }
  return out;
}

// Latin letters that have no Unicode decomposition but that people type without their accent or as
// two letters (what PostgreSQL's unaccent does too), and the Greek final sigma (case folding).
const FOLDS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ς: 'σ',
};
const FOLDABLE = /[ßæœøłđðþıς]/g;

// Folded code points beyond ASCII, as computed: three Unicode normalizations each took most of the
// time of a search answer's snippets (bench/README.md), and texts reuse a few hundred letters.
const folded = new Map<string, string>();
const FOLDED_KEPT = 4096;

/** Normalizes one code point: decomposed, accents stripped, case folded, recomposed. */
export function foldCodePoint(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0x80) return code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 32) : ch;
  const known = folded.get(ch);
  if (known !== undefined) return known;
  const result = withoutDiacritics(ch.normalize('NFKD').toLowerCase().normalize('NFKD'))
    .replace(FOLDABLE, (c) => FOLDS[c] ?? c)
    .normalize('NFC');
  if (folded.size < FOLDED_KEPT) folded.set(ch, result);
  return result;
}

const BEYOND_ASCII = /[\u0080-\u{10ffff}]/gu;

/**
 * The normalized copy of a text (docs/api §10.7): `Joyeux Noël` → `joyeux noel`. Runs of ASCII,
 * most of a text in most languages, are lowered whole; only the code points beyond are folded one
 * by one (a code point at a time, a text of 740 characters took 12 µs instead of 3.6).
 */
export function normalizeText(text: string): string {
  let out = '';
  let from = 0;
  for (const match of text.matchAll(BEYOND_ASCII)) {
    if (match.index > from) out += text.slice(from, match.index).toLowerCase();
    out += foldCodePoint(match[0]);
    from = match.index + match[0].length;
  }
  return from === 0 ? text.toLowerCase() : out + text.slice(from).toLowerCase();
}

/** A word: letters, digits and the marks that belong to them. */
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
/** A token of a normalized text: a word, or a hashtag (`#` then a word, not glued to a word before). */
const TOKEN = /#?[\p{L}\p{N}\p{M}]+/gu;

const isWordCode = (code: number): boolean =>
  code < 0x80
    ? (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)
    : WORD_CHAR.test(String.fromCodePoint(code));

/** Whether the code point just before `index` is a word character (a surrogate pair read whole). */
function wordBefore(text: string, index: number): boolean {
  if (index <= 0) return false;
  const low = text.charCodeAt(index - 1);
  const high = index >= 2 ? text.charCodeAt(index - 2) : 0;
  const pair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
  return isWordCode(pair ? (text.codePointAt(index - 2) ?? 0) : low);
}

/** Where the run of word characters from `index` ends. */
function wordEnd(text: string, index: number): number {
  let at = index;
  while (at < text.length) {
    const code = text.codePointAt(at) ?? 0;
    if (!isWordCode(code)) break;
    at += code > 0xffff ? 2 : 1;
  }
  return at;
}

export interface Token {
  /** The word, without `#`. */
  word: string;
  hashtag: boolean;
  /** UTF-16 offsets into the normalized text, `#` included for a hashtag. */
  start: number;
  end: number;
}

/** The words and hashtags of a normalized text, in order. `a#b` is two words, `##b` a hashtag. */
export function tokenize(normalized: string): Token[] {
  const tokens: Token[] = [];
  for (const match of normalized.matchAll(TOKEN)) {
    const start = match.index;
    let text = match[0];
    let hashtag = text.startsWith('#');
    if (hashtag && wordBefore(normalized, start)) {
      // A `#` glued to a word before it (`a#b`) starts no hashtag.
      hashtag = false;
      text = text.slice(1);
      tokens.push({ word: text, hashtag, start: start + 1, end: start + match[0].length });
      continue;
    }
    tokens.push({ word: hashtag ? text.slice(1) : text, hashtag, start, end: start + text.length });
  }
  return tokens;
}

/** The words of a message field as the index receives them: hashtags keep their `#`. */
export function indexTokens(text: string | null): Token[] {
  return text === null || text === '' ? [] : tokenize(normalizeText(text));
}

export interface SearchTerms {
  /** Word terms: match any word starting with them, hashtags' word part included. */
  words: string[];
  /** Hashtag terms, without `#`: match only that exact hashtag. */
  hashtags: string[];
  /** Every term used, normalized, hashtags with their `#` (the answer's `searchterms`). */
  terms: string[];
}

/** Cuts a term to the limit without leaving half of a surrogate pair. */
function cut(term: string): string {
  if (term.length <= MAX_TERM_LENGTH) return term;
  const cutAt = /[\ud800-\udbff]/.test(term.charAt(MAX_TERM_LENGTH - 1)) ? MAX_TERM_LENGTH - 1 : MAX_TERM_LENGTH;
  return term.slice(0, cutAt);
}

/** How much of a `search` or `hashtags` value is read: far more than 10 terms of 64 characters need. */
export const MAX_SEARCH_INPUT = 4096;

/**
 * The non-empty pieces of a search value, split on `+` and white space, read lazily from its first
 * MAX_SEARCH_INPUT characters: a request of 800 KB of one-letter words must not cost a split and a
 * normalization of each (it held the event loop 100 ms).
 */
function* pieces(raw: string): Generator<string> {
  const text = raw.length > MAX_SEARCH_INPUT ? raw.slice(0, MAX_SEARCH_INPUT) : raw;
  for (const match of text.matchAll(/[^+\s]+/gu)) yield match[0];
}

/**
 * The terms of a search (docs/api §10.7): `search` split on `+` and white space, then the words of
 * `hashtags` as hashtag terms (with or without `#`). Each piece is normalized and reduced to its
 * words, so quotes, `*`, `-`, parentheses and every other symbol are dropped before any query is
 * built. Single-character word terms are ignored, duplicates kept once, at most 10 terms, each cut
 * to 64 characters; reading stops once 10 terms are found.
 */
export function parseSearchTerms(search: string, hashtags: string): SearchTerms {
  const result: SearchTerms = { words: [], hashtags: [], terms: [] };
  const full = () => result.terms.length >= MAX_TERMS;
  const add = (word: string, hashtag: boolean): void => {
    if (full()) return;
    const term = cut(word);
    if (!hashtag && [...term].length < 2) return;
    const label = hashtag ? `#${term}` : term;
    if (result.terms.includes(label)) return;
    result.terms.push(label);
    (hashtag ? result.hashtags : result.words).push(term);
  };
  for (const piece of pieces(search)) {
    if (full()) break;
    for (const token of tokenize(normalizeText(piece))) add(token.word, token.hashtag);
  }
  for (const piece of pieces(hashtags)) {
    if (full()) break;
    const tokens = tokenize(normalizeText(piece));
    // `famille` and `#famille` in `hashtags` are both the hashtag #famille.
    tokens.forEach((token, index) => add(token.word, index === 0 || token.hashtag));
  }
  return result;
}

/**
 * The tokens of a normalized text that these terms match (tokenize's, in order): a word term
 * matches a token whose word starts with it, a hashtag term a hashtag that is exactly it. Only the
 * places where a term occurs are looked at (indexOf), each checked to start a token: tokenizing the
 * whole text with its Unicode pattern cost 40 ns a character, most of a search answer's snippets
 * (42 µs a message for the benchmark's two words, whose hits are long).
 */
export function matchingTokens(normalized: string, terms: Pick<SearchTerms, 'words' | 'hashtags'>): Token[] {
  const found = new Map<number, Token>();
  // A term is a token's word, so it holds word characters only; any other can match no token.
  const usable = (term: string) => term !== '' && wordEnd(term, 0) === term.length;
  for (const word of terms.words.filter(usable)) {
    for (let at = normalized.indexOf(word); at !== -1; at = normalized.indexOf(word, at + 1)) {
      if (wordBefore(normalized, at)) continue;
      // A `#` before the word starts a hashtag unless it is glued to a word itself (`a#b`).
      const hashtag = at > 0 && normalized.charCodeAt(at - 1) === 0x23 && !wordBefore(normalized, at - 1);
      const start = hashtag ? at - 1 : at;
      const end = wordEnd(normalized, at);
      if (!found.has(start)) found.set(start, { word: normalized.slice(at, end), hashtag, start, end });
    }
  }
  for (const tag of terms.hashtags.filter(usable)) {
    const needle = `#${tag}`;
    for (let at = normalized.indexOf(needle); at !== -1; at = normalized.indexOf(needle, at + 1)) {
      if (wordBefore(normalized, at) || wordEnd(normalized, at + 1) !== at + needle.length) continue;
      found.set(at, { word: tag, hashtag: true, start: at, end: at + needle.length });
    }
  }
  return [...found.values()].sort((a, b) => a.start - b.start);
}

/** One entry per message id, the last one given winning (an upsert writes each row once). */
export function latestOfEach<T extends { id: string }>(messages: T[]): T[] {
  return [...new Map(messages.map((m) => [m.id, m])).values()];
}
