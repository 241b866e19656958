import { describe, expect, it } from 'vitest';
import { MAX_SEARCH_INPUT, MAX_TERMS, parseSearchTerms } from './terms.js';

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
