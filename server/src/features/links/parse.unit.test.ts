import { describe, expect, it } from 'vitest';
import {
  cleanText,
  decodeHtml,
  HTML_READ_BUDGET,
  MAX_NESTING,
  parseHtml,
  parseOEmbed,
  readPageMeta,
  resolveHttpUrl,
} from './parse.js';

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

describe('readPageMeta: the head and the first bytes only', () => {
  const read = (html: string, contentType?: string) =>
    readPageMeta(Buffer.from(html, 'latin1'), contentType ?? 'text/html', base);
  /** Text that fills `bytes` bytes inside the head without being markup the preview reads. */
  const filler = (bytes: number) => `<style>${'x'.repeat(bytes - '<style></style>'.length)}</style>`;

  it('reads the meta tags of the head, and nothing after its end', () => {
    const meta = read(
      `<html><head><title>Head</title><meta property="og:title" content="OG"></head>
       <body><meta name="description" content="in the body"><link rel="canonical" href="/body"></body></html>`,
    );
    expect(meta.title).toBe('OG');
    expect(meta.description).toBeNull();
    expect(meta.canonical).toBeNull();
    // A <body> without </head> ends the head too.
    const implied = read(`<head><title>T</title><body><meta name="description" content="in the body">`);
    expect(implied.title).toBe('T');
    expect(implied.description).toBeNull();
  });

  it(`cuts a page whose </head> never comes at ${HTML_READ_BUDGET / 1024} KiB`, () => {
    const early = '<head><meta property="og:description" content="Early">';
    const title = '<title>Late</title>';
    // The title ends exactly at the budget: read. One byte more of filler cuts its end tag, and a
    // title without one is not read.
    const fits = early + filler(HTML_READ_BUDGET - early.length - title.length) + title;
    expect(fits.length).toBe(HTML_READ_BUDGET);
    expect(read(fits)).toMatchObject({ title: 'Late', description: 'Early' });
    const over = early + filler(HTML_READ_BUDGET - early.length - title.length + 1) + title;
    expect(read(over)).toMatchObject({ title: null, description: 'Early' });
    const tags = `<meta property="og:image" content="/late.png"><link rel="canonical" href="/late">`;
    const late = read(early + filler(HTML_READ_BUDGET) + tags);
    expect(late.image).toBeNull();
    expect(late.canonical).toBeNull();
  });

  it(`stops where elements nest deeper than ${MAX_NESTING}, with what it read before`, () => {
    const after = '<meta property="og:description" content="After the nesting">';
    const shallow = read(`<head><title>T</title>${'<div>'.repeat(MAX_NESTING - 1)}${after}`);
    expect(shallow.description).toBe('After the nesting');
    // <head> is one level: these divs reach one past the cap.
    const deep = read(`<head><title>T</title>${'<div>'.repeat(MAX_NESTING)}${after}`);
    expect(deep.title).toBe('T');
    expect(deep.description).toBeNull();
    // Elements that close, and void ones, do not add up.
    const flat = read(`<head><title>T</title>${'<div></div><br><p>'.repeat(2 * MAX_NESTING)}${after}`);
    expect(flat.description).toBe('After the nesting');
  });

  it('decodes the bytes with the charset of the header or of the page', () => {
    expect(read('<title>caf\xe9</title>', 'text/html; charset=ISO-8859-1').title).toBe('café');
    expect(read('<meta charset="windows-1252"><title>caf\x80</title>').title).toBe('caf€');
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
