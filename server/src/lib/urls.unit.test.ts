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
