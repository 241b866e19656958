import { describe, expect, it } from 'vitest';
import { cleanText, decodeHtml, parseHtml, parseOEmbed, resolveHttpUrl } from './parse.js';

const base = new URL('https://example.com/blog/post?id=1');

describe('parseHtml', () => {
  it('prefers Open Graph, then Twitter, then <title> and description', () => {
    const meta = parseHtml(
      `<html><head><title>T</title><meta name="twitter:title" content="TW"><meta property="og:title" content="OG">
       <meta name="description" content="D"><meta name="twitter:description" content="TD"></head></html>`,
      base,
    );
    expect(meta.title).toBe('OG');
    expect(meta.description).toBe('TD');
  });

  it('ignores an SVG <title> and decodes entities; <title> is raw text, as browsers read it', () => {
    const meta = parseHtml(
      `<body><svg><title>icon</title></svg><title>Fish &amp; chips <b>bold</b></title></body>`,
      base,
    );
    expect(meta.title).toBe('Fish & chips <b>bold</b>');
  });

  it('resolves relative URLs and drops non-http(s) ones', () => {
    const meta = parseHtml(
      `<meta property="og:image" content="javascript:alert(1)"><meta name="twitter:image" content="img/a.png">
       <link rel="canonical" href="/c"><link rel="alternate" type="application/json+oembed" href="//other.example/o">
       <meta property="og:video" content="data:text/html,x">`,
      base,
    );
    expect(meta.image).toBe('https://example.com/blog/img/a.png');
    expect(meta.canonical).toBe('https://example.com/c');
    expect(meta.oembed).toBe('https://other.example/o');
    expect(meta.players).toEqual([]);
  });

  it('works on a page cut in the middle of a tag', () => {
    const meta = parseHtml('<html><head><title>Cut</title><meta property="og:description" cont', base);
    expect(meta.title).toBe('Cut');
    expect(meta.description).toBeNull();
  });
});

describe('helpers', () => {
  it('cleanText collapses whitespace, drops control characters and cuts to the limit', () => {
    expect(cleanText(' a \n\t b\u0000c ', 100)).toBe('a b c');
    expect(cleanText('   ', 100)).toBeNull();
    const cut = cleanText('x'.repeat(600), 500);
    expect(cut).toHaveLength(500);
    expect(cut?.endsWith('…')).toBe(true);
  });

  it('resolveHttpUrl refuses credentials and other schemes', () => {
    expect(resolveHttpUrl('https://u:p@example.com/', base)).toBeNull();
    expect(resolveHttpUrl('file:///etc/passwd', base)).toBeNull();
    expect(resolveHttpUrl('../x', base)).toBe('https://example.com/x');
  });

  it('decodeHtml uses the header charset, then <meta charset>', () => {
    const latin1 = Buffer.from('<title>caf\xe9</title>', 'latin1');
    expect(decodeHtml(latin1, 'text/html; charset=ISO-8859-1')).toContain('café');
    const meta = Buffer.from('<meta charset="windows-1252"><title>caf\xe9</title>', 'latin1');
    expect(decodeHtml(meta, 'text/html')).toContain('café');
    expect(decodeHtml(Buffer.from('<title>café</title>'), undefined)).toContain('café');
  });

  it('parseOEmbed reads plain-text fields only', () => {
    const info = parseOEmbed(
      Buffer.from(JSON.stringify({ title: ' A ', provider_name: 'P', html: '<script>', thumbnail_url: '/t.jpg' })),
      base,
    );
    expect(info).toEqual({ title: 'A', providerName: 'P', thumbnail: 'https://example.com/t.jpg' });
    expect(parseOEmbed(Buffer.from('[1]'), base)).toBeNull();
    expect(parseOEmbed(Buffer.from('nope'), base)).toBeNull();
  });
});
