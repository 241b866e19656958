import { plainText } from '@kith/common';
import { describe, expect, it } from 'vitest';
import { indexTokens, parseSearchTerms } from './terms.js';

// Why the index needs no change for formatted texts (docs/decisions.md, light formatting): the
// tokenizer keeps only letters, digits and marks, so the words of a formatted text are those of its
// plain text, and no marker ever becomes a term.
const SAMPLES = [
  '**word** and *other* _third_ ***both***',
  '- milk\n* eggs\n1. first\n2) second\n> quoted **bold**',
  'see [the site](https://example.org/a_b?x=1) or https://example.org/c*d*',
  'snake_case_words 2*3*4 [x](javascript:alert(1)) #tag **#bold_tag**',
  'Été **Noël** [Ærø](https://ærø.example)',
];

const words = (text: string) => indexTokens(text).map((token) => token.word);

describe('search terms of formatted texts', () => {
  it.each(SAMPLES)('indexes the same words as the plain text: %s', (text) => {
    expect(words(text)).toEqual(words(plainText(text)));
  });

  it('never makes a term of a marker', () => {
    for (const text of SAMPLES) {
      for (const word of words(text)) expect(word).toMatch(/^[\p{L}\p{N}\p{M}]+$/u);
    }
    expect(parseSearchTerms('** * [ ]( _ > -', '').terms).toEqual([]);
    expect(parseSearchTerms('**word**', '').words).toEqual(['word']);
  });
});
