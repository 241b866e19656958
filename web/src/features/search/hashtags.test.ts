import { describe, expect, it } from 'vitest';
import { splitHashtags } from './hashtags';

describe('splitHashtags', () => {
  it('finds hashtags of any script and gives the text back whole', () => {
    const text = 'Fête #Noël, puis #été! #праздник #생일';
    const parts = splitHashtags(text);
    expect(parts.filter((part) => part.type === 'hashtag').map((part) => part.tag)).toEqual([
      'Noël',
      'été',
      'праздник',
      '생일',
    ]);
    expect(parts.map((part) => (part.type === 'text' ? part.text : `#${part.tag}`)).join('')).toBe(text);
  });

  it('needs a letter or digit after "#" and nothing glued before it, as the server does', () => {
    expect(splitHashtags('a#b # ## #1 ##x')).toEqual([
      { type: 'text', text: 'a#b # ## ' },
      { type: 'hashtag', tag: '1' },
      { type: 'text', text: ' #' },
      { type: 'hashtag', tag: 'x' },
    ]);
  });

  it('sees a word before the "#" even when it is outside the basic plane', () => {
    // 𝐀 (U+1D400) is a letter written as a surrogate pair.
    expect(splitHashtags('𝐀#tag')).toEqual([{ type: 'text', text: '𝐀#tag' }]);
    expect(splitHashtags('😀#tag')).toEqual([
      { type: 'text', text: '😀' },
      { type: 'hashtag', tag: 'tag' },
    ]);
  });
});
