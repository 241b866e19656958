import { describe, expect, it } from 'vitest';
import { firstUrlInText, urlsInText } from './urls.js';

describe('urlsInText (the 0.5.6 client rule, §10.6)', () => {
  it('stops at a space, a newline or a square bracket', () => {
    expect(urlsInText('see https://a.example/x y\nhttp://b.example/p?q=1\n[https://c.example/z]')).toEqual([
      'https://a.example/x',
      'http://b.example/p?q=1',
      'https://c.example/z',
    ]);
  });

  it('drops a leading "(" and a trailing ")"', () => {
    expect(urlsInText('(https://a.example/wiki/Foo_(bar))')).toEqual(['https://a.example/wiki/Foo_(bar)']);
    expect(firstUrlInText('look (https://a.example/x)')).toBe('https://a.example/x');
  });

  it('finds nothing in text without http(s) URLs', () => {
    expect(urlsInText(null)).toEqual([]);
    expect(urlsInText('ftp://a.example https:// mailto:x@y')).toEqual([]);
    expect(firstUrlInText('')).toBeNull();
  });
});

describe('URLs of formatted texts (common/src/markup.ts)', () => {
  const text = 'Read [the notes](https://a.example/notes_(v2)). Also **https://b.example/x**, and [x](javascript:y)';

  it('takes the first link as Kith shows it, without the closing parenthesis or markers', () => {
    expect(firstUrlInText(text)).toBe('https://a.example/notes_(v2)');
    expect(firstUrlInText('[t](https://a.example/x)')).toBe('https://a.example/x');
    expect(firstUrlInText('see https://a.example/x.')).toBe('https://a.example/x');
  });

  it("accepts what either client finds: the 0.5.6 client's URLs and Kith's links", () => {
    expect(urlsInText(text)).toEqual([
      'https://a.example/notes_(v2)).',
      'https://b.example/x**,',
      'https://a.example/notes_(v2)',
      'https://b.example/x',
    ]);
  });
});
