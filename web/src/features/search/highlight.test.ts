import { describe, expect, it } from 'vitest';
import { snippetParts } from './highlight';

const marked = (text: string, ranges: [number, number][]) =>
  snippetParts(text, ranges)
    .map((part) => (part.marked ? `[${part.text}]` : part.text))
    .join('');

describe('snippetParts', () => {
  it('marks the ranges and keeps all the text', () => {
    expect(marked('un café au lait', [[3, 7]])).toBe('un [café] au lait');
    expect(marked('un café au lait', [])).toBe('un café au lait');
  });

  it('sorts, merges overlapping and touching ranges', () => {
    expect(
      marked('abcdefghij', [
        [6, 8],
        [1, 3],
        [2, 4],
        [4, 5],
      ]),
    ).toBe('a[bcde]f[gh]ij');
  });

  it('clamps ranges to the text and drops empty or reversed ones', () => {
    expect(
      marked('abc', [
        [-5, 1],
        [2, 99],
      ]),
    ).toBe('[a]b[c]');
    expect(
      marked('abc', [
        [2, 2],
        [3, 1],
      ]),
    ).toBe('abc');
  });

  it('never cuts a surrogate pair in half', () => {
    // "😀" is two UTF-16 units (2 and 3); ranges that end or start inside it take it whole.
    expect(marked('ab😀cd', [[3, 5]])).toBe('ab[😀c]d');
    expect(marked('ab😀cd', [[0, 3]])).toBe('[ab😀]cd');
    expect(snippetParts('ab😀cd', [[3, 3]])).toEqual([{ text: 'ab😀cd', marked: false }]);
  });

  it('leaves markup in the text as text', () => {
    expect(snippetParts('<b>hi</b>', [[3, 5]])).toEqual([
      { text: '<b>', marked: false },
      { text: 'hi', marked: true },
      { text: '</b>', marked: false },
    ]);
  });
});
