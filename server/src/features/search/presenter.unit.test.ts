import { describe, expect, it } from 'vitest';
import { foldCodePoint, matchingTokens } from '../../search/terms.js';
import { buildSnippet, matchRanges, SNIPPET_LENGTH, type HighlightTerms } from './presenter.js';

/** The ranges as the whole text matched at once would give them: the oracle for the pieces. */
function wholeTextRanges(source: string, terms: HighlightTerms): { start: number; end: number }[] {
  let normalized = '';
  const origin: { start: number; end: number }[] = [];
  let offset = 0;
  for (const ch of source) {
    const folded = foldCodePoint(ch);
    const previous = origin.at(-1);
    if (folded === '' && previous !== undefined && previous.end === offset) previous.end = offset + ch.length;
    for (let i = 0; i < folded.length; i += 1) origin.push({ start: offset, end: offset + ch.length });
    normalized += folded;
    offset += ch.length;
  }
  return matchingTokens(normalized, terms).map((t) => ({
    start: origin[t.start]?.start ?? -1,
    end: origin[t.end - 1]?.end ?? -1,
  }));
}

/** A deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const WORDS = [
  'Noël',
  'noel',
  'École',
  'ecole',
  'Straße',
  'ﬁn',
  'café',
  'CAFE',
  '#Fête',
  '#fete',
  'a#fete',
  '😀',
  'ǅemal',
  'x',
];
const terms: HighlightTerms = { words: ['noel', 'ecol', 'cafe', 'fin', 'dzem'], hashtags: ['fete'] };

describe('matchRanges', () => {
  it('matches in pieces exactly as the whole text does, accents, ligatures and hashtags included', () => {
    const next = random(7);
    for (let round = 0; round < 200; round += 1) {
      const count = 1 + Math.floor(next() * 400);
      const words = Array.from({ length: count }, () => WORDS[Math.floor(next() * WORDS.length)] ?? 'x');
      const text = words.join(' ');
      expect(matchRanges(text, terms)).toEqual(wholeTextRanges(text, terms));
    }
  });

  it('finds words in a plain ASCII text by their letters, whatever their case', () => {
    const text = `${'word '.repeat(80)}Cafe and CAFES #fete a#fete`;
    const ranges = matchRanges(text, terms);
    expect(ranges.map((r) => text.slice(r.start, r.end))).toEqual(['Cafe', 'CAFES', '#fete']);
  });

  it('stops reading once the matches a snippet can show are found', () => {
    const text = `café ${'mot '.repeat(100)}café ${'mot '.repeat(500)}café`;
    expect(matchRanges(text, terms)).toHaveLength(3);
    const first = matchRanges(text, terms, SNIPPET_LENGTH);
    expect(first[0]).toEqual({ start: 0, end: 4 });
    expect(first.every((r) => r.start < 2000)).toBe(true);
  });
});

describe('buildSnippet', () => {
  it('makes every run of white space one space, and trims', () => {
    const next = random(3);
    const spaces = [' ', '  ', '\n', '\n\n', '\t', ' \r\n ', '\u00a0', '\u2003', '\u3000 '];
    for (let round = 0; round < 300; round += 1) {
      const parts = Array.from({ length: 1 + Math.floor(next() * 8) }, (_, i) => [
        spaces[Math.floor(next() * spaces.length)] ?? ' ',
        `mot${i}`,
      ]).flat();
      const text = parts.join('');
      const flat = text
        .split(/\s+/)
        .filter((word) => word !== '')
        .join(' ');
      expect(buildSnippet(null, text, terms).text, JSON.stringify(text)).toBe(flat);
    }
  });

  it('highlights every match inside the window around the first one in a long text', () => {
    const text = `${'début '.repeat(300)}Noël à l'école, noël ${'fin '.repeat(1000)}noël`;
    const snippet = buildSnippet(null, text, terms);
    const shown = snippet.highlights.map(([start, end]) => snippet.text.slice(start, end));
    const fins = snippet.text
      .replaceAll('…', '')
      .split(' ')
      .filter((word) => word === 'fin').length;
    expect(fins).toBeGreaterThan(5);
    expect(shown).toEqual(['Noël', 'école', 'noël', ...Array<string>(fins).fill('fin')]);
    expect(snippet.text.startsWith('…')).toBe(true);
    expect(snippet.text.endsWith('…')).toBe(true);
  });
});
