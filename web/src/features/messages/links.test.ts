import { describe, expect, it } from 'vitest';
import { firstUrl, shortenLinkText, truncate } from './links.ts';

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

  it('drops trailing punctuation and takes the target of a formatted link, like the server', () => {
    // The preview endpoint compares with the server's URLs (server/src/lib/urls.ts, the same parser).
    expect(firstUrl('see https://a.example/x.')).toBe('https://a.example/x');
    expect(firstUrl('**see** [the page](https://a.example/Kith_(word)).')).toBe('https://a.example/Kith_(word)');
    expect(firstUrl('[bad](javascript:alert(1)) https://b.example')).toBe('https://b.example');
  });
});
