import { describe, expect, it } from 'vitest';
import {
  foldCodePoint,
  MAX_SEARCH_INPUT,
  MAX_TERMS,
  matchingTokens,
  normalizeText,
  parseSearchTerms,
  tokenize,
} from './terms.js';

describe('parseSearchTerms', () => {
  it('splits on + and white space, folds accents and keeps hashtags apart', () => {
    expect(parseSearchTerms('Plage+été  #Noël', 'famille #vacances')).toEqual({
      words: ['plage', 'ete'],
      hashtags: ['noel', 'famille', 'vacances'],
      terms: ['plage', 'ete', '#noel', '#famille', '#vacances'],
    });
  });

  it('keeps the first 10 distinct terms', () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`);
    const { terms } = parseSearchTerms(words.join(' '), '#late');
    expect(terms).toEqual(words.slice(0, MAX_TERMS));
  });

  it('reads only the first characters of a huge value, so it costs no more than a normal one', () => {
    // 800 KB of one-letter words (ignored) before a real one: the real word lies past what is read.
    const { terms } = parseSearchTerms(`${'a '.repeat(400_000)}zebra`, `${'+'.repeat(MAX_SEARCH_INPUT)}#late`);
    expect(terms).toEqual([]);
    expect(parseSearchTerms(`${'a '.repeat(100)}zebra`, '').terms).toEqual(['zebra']);
  });
});

/** A deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe('matchingTokens', () => {
  /** The rule as written: every token of the text, kept when a term matches it. */
  const oracle = (text: string, terms: { words: string[]; hashtags: string[] }) =>
    tokenize(text).filter(
      (token) =>
        (token.hashtag && terms.hashtags.includes(token.word)) || terms.words.some((w) => token.word.startsWith(w)),
    );

  it('finds exactly the tokens that tokenize gives and the terms match', () => {
    // Glued and doubled `#`, marks, digits, astral letters and emoji, punctuation, prefixes of prefixes.
    const pieces = [
      'noel',
      'noe',
      'noelle',
      '#noel',
      '##noel',
      'a#noel',
      '𝐀#noel',
      'x',
      '#',
      ' ',
      ' ',
      '.',
      "'",
      '-',
      'कि',
      'ि',
      'é',
      '😀',
      '𝐀',
      '12',
      'fete',
      '#fete',
      '#fetes',
      'fête',
      '_',
      'ab',
    ];
    const terms = { words: ['noe', 'noel', 'ab', '12', 'कि'], hashtags: ['fete', 'noel'] };
    const next = random(11);
    for (let round = 0; round < 2000; round += 1) {
      const text = Array.from(
        { length: 1 + Math.floor(next() * 12) },
        () => pieces[Math.floor(next() * pieces.length)],
      ).join('');
      expect(matchingTokens(text, terms), JSON.stringify(text)).toEqual(oracle(text, terms));
    }
  });

  it('never matches a term that holds a character no word has', () => {
    expect(matchingTokens('pique-nique #a-b', { words: ['pique-nique'], hashtags: ['a-b'] })).toEqual([]);
    expect(matchingTokens('pique-nique', { words: ['pique'], hashtags: [] })).toEqual([
      { word: 'pique', hashtag: false, start: 0, end: 5 },
    ]);
  });

  it('reads a letter beyond the BMP before a # as a word, so no hashtag starts there', () => {
    expect(tokenize('𝐀#noel')).toEqual([
      { word: '𝐀', hashtag: false, start: 0, end: 2 },
      { word: 'noel', hashtag: false, start: 3, end: 7 },
    ]);
  });
});

describe('normalizeText', () => {
  it('folds each code point as foldCodePoint does, ASCII runs lowered whole', () => {
    const pieces = [
      'Joyeux ',
      'NOËL',
      'é',
      'e\u0301',
      'ß',
      'Æ',
      '😀',
      '\ud800',
      '\udc00',
      'ǅ',
      'ﬁ',
      'İ',
      'Σ',
      'ς',
      'ABC',
      '#',
      '1',
    ];
    const next = random(5);
    for (let round = 0; round < 1000; round += 1) {
      const text = Array.from(
        { length: Math.floor(next() * 10) },
        () => pieces[Math.floor(next() * pieces.length)],
      ).join('');
      expect(normalizeText(text), JSON.stringify(text)).toBe([...text].map(foldCodePoint).join(''));
    }
    expect(normalizeText('Joyeux Noël, ÉTÉ')).toBe('joyeux noel, ete');
  });
});
