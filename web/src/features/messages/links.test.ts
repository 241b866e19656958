import { describe, expect, it } from 'vitest';
import { firstUrl, shortenLinkText, splitLinks, truncate } from './links.ts';
import type { TextPart } from './links.ts';

const join = (parts: TextPart[]) => parts.map((p) => (p.type === 'text' ? p.text : p.url)).join('');
const urls = (text: string) => splitLinks(text).flatMap((p) => (p.type === 'link' ? [p.url] : []));

describe('shortenLinkText', () => {
  it('keeps links of 50 characters or fewer', () => {
    const fifty = 'https://example.com/' + 'a'.repeat(30);
    expect(fifty).toHaveLength(50);
    expect(shortenLinkText(fifty)).toBe(fifty);
  });

  it('shortens a 51-character link to 25 + … + 24', () => {
    const url = 'https://example.com/' + 'a'.repeat(10) + 'b'.repeat(20) + 'Z';
    expect(url).toHaveLength(51);
    const short = shortenLinkText(url);
    expect(short).toBe(url.slice(0, 25) + '…' + url.slice(-24));
    expect(short).toHaveLength(50);
  });

  it('does not split astral characters', () => {
    const url = 'https://example.com/' + '😀'.repeat(40);
    const short = shortenLinkText(url);
    expect(Array.from(short)).toHaveLength(50);
    expect(short.endsWith('😀'.repeat(24))).toBe(true);
  });
});

describe('truncate', () => {
  it('keeps text at or under the limit', () => {
    expect(truncate('a'.repeat(30), 30)).toBe('a'.repeat(30));
    expect(truncate('', 30)).toBe('');
  });

  it('cuts text over the limit and adds an ellipsis', () => {
    expect(truncate('a'.repeat(31), 30)).toBe('a'.repeat(30) + '…');
  });

  it('trims spaces left at the cut', () => {
    expect(truncate('Family news    and more', 15)).toBe('Family news…');
  });

  it('counts code points', () => {
    expect(truncate('😀😀😀', 3)).toBe('😀😀😀');
    expect(truncate('😀😀😀😀', 3)).toBe('😀😀😀…');
  });
});

describe('splitLinks', () => {
  it('returns plain text untouched', () => {
    expect(splitLinks('no links here')).toEqual([{ type: 'text', text: 'no links here' }]);
    expect(splitLinks('')).toEqual([]);
  });

  it('finds http and https links up to whitespace', () => {
    expect(splitLinks('see https://a.example/x?y=1 and http://b.example\nbye')).toEqual([
      { type: 'text', text: 'see ' },
      { type: 'link', url: 'https://a.example/x?y=1' },
      { type: 'text', text: ' and ' },
      { type: 'link', url: 'http://b.example' },
      { type: 'text', text: '\nbye' },
    ]);
  });

  it('handles a link at the very start and end', () => {
    expect(splitLinks('https://a.example')).toEqual([{ type: 'link', url: 'https://a.example' }]);
  });

  it('stops at square brackets and tabs', () => {
    expect(urls('[https://a.example/p]')).toEqual(['https://a.example/p']);
    expect(urls('https://a.example\tnext')).toEqual(['https://a.example']);
  });

  it('drops trailing sentence punctuation', () => {
    expect(urls('Look: https://a.example/page. Nice!')).toEqual(['https://a.example/page']);
    expect(urls('https://a.example/?!,;:.')).toEqual(['https://a.example/']);
    expect(urls('https://a.example/a.b,c')).toEqual(['https://a.example/a.b,c']);
  });

  it('keeps a parenthesised link’s parentheses as text', () => {
    const parts = splitLinks('(see https://a.example/x)');
    expect(parts).toEqual([
      { type: 'text', text: '(see ' },
      { type: 'link', url: 'https://a.example/x' },
      { type: 'text', text: ')' },
    ]);
    expect(urls('(https://a.example/x).')).toEqual(['https://a.example/x']);
  });

  it('keeps a closing parenthesis when the URL has an opening one', () => {
    expect(urls('https://en.wikipedia.org/wiki/Kith_(word)')).toEqual(['https://en.wikipedia.org/wiki/Kith_(word)']);
  });

  it('does not link a bare scheme', () => {
    expect(splitLinks('https:// and https://.')).toEqual([{ type: 'text', text: 'https:// and https://.' }]);
  });

  it('always joins back to the input', () => {
    const samples = [
      'plain',
      '(https://a.example/x), then [http://b.example] https://c.example/(d)).',
      'https://e.example/😀?q=1!\n\nhttp://f.example',
      'x https:// y https://.',
    ];
    for (const s of samples) expect(join(splitLinks(s))).toBe(s);
  });

  it('never produces empty or adjacent text parts', () => {
    const parts = splitLinks('https:// then https://a.example');
    expect(parts).toEqual([
      { type: 'text', text: 'https:// then ' },
      { type: 'link', url: 'https://a.example' },
    ]);
  });
});

describe('firstUrl', () => {
  it('returns null without a URL', () => {
    expect(firstUrl('hello')).toBeNull();
    expect(firstUrl('https:// only')).toBeNull();
  });

  it('returns the first URL', () => {
    expect(firstUrl('a https://one.example b https://two.example')).toBe('https://one.example');
  });

  it('follows the server rule for parentheses', () => {
    expect(firstUrl('(https://a.example/x)')).toBe('https://a.example/x');
  });

  it('keeps trailing punctuation like the server does', () => {
    // The preview endpoint compares with the server's URL, so these must match it exactly.
    expect(firstUrl('see https://a.example/x.')).toBe('https://a.example/x.');
  });
});
