import { Parser } from 'htmlparser2';

// This module is also loaded on its own by the page reader's worker thread (page-reader.ts), from
// its .ts source under Vitest (Node strips the types) and from dist in the built server: it must
// import no other module of Kith, only packages.

/**
 * What a link preview reads from an HTML page: Open Graph, Twitter card, `<title>` and
 * `<meta name="description">`, the canonical URL, the oEmbed discovery link. Nothing of the page's
 * markup is kept: only plain-text values and URLs (resolved against the final URL, http(s) only).
 */
export interface PageMeta {
  title: string | null;
  description: string | null;
  /** The canonical URL the page declares (og:url, then <link rel=canonical>). */
  canonical: string | null;
  siteName: string | null;
  /** The preview image URL (absolute). */
  image: string | null;
  /** The oEmbed JSON endpoint the page links to (absolute). */
  oembed: string | null;
  /** Player URLs the page declares (og:video…, twitter:player), absolute; only embeds.ts reads them. */
  players: string[];
}

export const MAX_TITLE_LENGTH = 500;
export const MAX_DESCRIPTION_LENGTH = 500;
const MAX_URL_LENGTH = 2048;

/**
 * How many bytes of an HTML page a preview reads and parses: 512 KiB. The metadata is in the
 * `<head>`, and parsing stops at its end; but some heads carry a few hundred KB of inline styles and
 * scripts before their Open Graph tags, and with the nesting capped (below) a parse costs time in
 * proportion to its bytes, so the budget is set by what a head may hold, not by the parser.
 */
export const HTML_READ_BUDGET = 512 * 1024;

/**
 * How deep elements may nest before the parse stops. htmlparser2 keeps the open elements in an
 * array it shifts at every tag, so each tag costs the current depth: 2 MiB of nested `<div>` took
 * 20-45 s. Capped, the cost is linear. Browsers nest no deeper (Blink stops at 512), and a head
 * never comes close.
 */
export const MAX_NESTING = 512;

/** Collapses whitespace, drops control characters, cuts to `max` UTF-16 units ("…" where cut). */
export function cleanText(value: string | null | undefined, max: number): string | null {
  if (value === null || value === undefined) return null;
  let text = value
    // eslint-disable-next-line no-control-regex -- control characters are exactly what goes
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return null;
  if (text.length > max) {
    let cut = max - 1;
    // Do not split a surrogate pair.
    const code = text.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    text = `${text.slice(0, cut).trimEnd()}…`;
  }
  return text;
}

/** An absolute http(s) URL from a page attribute, resolved against `base`; anything else is null. */
export function resolveHttpUrl(value: string | null | undefined, base: URL): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  try {
    const url = new URL(trimmed, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.username !== '' || url.password !== '') return null;
    return url.href.length <= MAX_URL_LENGTH ? url.href : null;
  } catch {
    return null;
  }
}

/** The text of an HTML body: the header's charset, else a `<meta charset>` near the top, else UTF-8. */
export function decodeHtml(body: Uint8Array, contentType: string | undefined): string {
  let charset = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  if (charset === undefined) {
    const head = Buffer.from(body.subarray(0, 2048)).toString('latin1');
    charset = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  }
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/**
 * The metadata of a page from its bytes as fetched: only the first `HTML_READ_BUDGET` bytes are
 * decoded and parsed, up to the end of the `<head>`. Link previews run it in a worker thread
 * (page-reader.ts): even linear, it is 512 KiB of markup chosen by someone else.
 */
export function readPageMeta(body: Uint8Array, contentType: string | undefined, base: URL): PageMeta {
  return parseHtml(decodeHtml(body.subarray(0, HTML_READ_BUDGET), contentType), base);
}

/**
 * Reads the page's metadata, up to the end of its `<head>` (`</head>`, or the `<body>` that closes
 * it): what comes after is the page's content, not its description. Stops early, with what it has
 * read, where elements nest deeper than `MAX_NESTING`. Works on a page cut anywhere.
 */
export function parseHtml(html: string, base: URL): PageMeta {
  const meta = new Map<string, string>();
  const links: { rel: string[]; type: string; href: string }[] = [];
  let title: string | null = null;
  let titleText: string[] | null = null;
  // <title> inside <svg> is not the page title.
  let svgDepth = 0;
  // Open elements, as the parser counts them (a void element closes as soon as it opens).
  let depth = 0;
  let stopped = false;
  // Stops the tokenizer: the rest of what was written is never looked at.
  const stop = () => {
    stopped = true;
    parser.pause();
  };

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        depth += 1;
        if (depth > MAX_NESTING) stop();
        if (name === 'svg') svgDepth += 1;
        if (name === 'title' && title === null && svgDepth === 0) titleText = [];
        if (name === 'meta') {
          const key = (attribs.property ?? attribs.name ?? attribs.itemprop ?? '').trim().toLowerCase();
          const content = attribs.content;
          // The first value of each key wins, like browsers and scrapers do.
          if (key !== '' && content !== undefined && !meta.has(key)) meta.set(key, content);
        }
        if (name === 'link' && attribs.href !== undefined) {
          links.push({
            rel: (attribs.rel ?? '').toLowerCase().split(/\s+/),
            type: (attribs.type ?? '').trim().toLowerCase(),
            href: attribs.href,
          });
        }
      },
      ontext(text) {
        if (titleText !== null) titleText.push(text);
      },
      onclosetag(name, isImplied) {
        if (depth > 0) depth -= 1;
        if (name === 'svg' && svgDepth > 0) svgDepth -= 1;
        if (name === 'title' && titleText !== null) {
          // Only `</title>` ends a title; one closed by the end of the text was cut there.
          if (!isImplied) title = titleText.join('');
          titleText = null;
        }
        if (name === 'head') stop();
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  if (!stopped) parser.end();

  const first = (...keys: string[]): string | null => {
    for (const key of keys) {
      const value = meta.get(key);
      if (value !== undefined && value.trim() !== '') return value;
    }
    return null;
  };
  // The first of these keys whose value is a usable http(s) URL.
  const firstUrl = (...keys: string[]): string | null => {
    for (const key of keys) {
      const url = resolveHttpUrl(meta.get(key), base);
      if (url !== null) return url;
    }
    return null;
  };
  const link = (predicate: (l: (typeof links)[number]) => boolean): string | null =>
    links.find(predicate)?.href ?? null;

  const players = ['og:video:secure_url', 'og:video:url', 'og:video', 'twitter:player']
    .map((key) => resolveHttpUrl(meta.get(key), base))
    .filter((url): url is string => url !== null);

  return {
    title: cleanText(first('og:title', 'twitter:title') ?? title, MAX_TITLE_LENGTH),
    description: cleanText(first('og:description', 'twitter:description', 'description'), MAX_DESCRIPTION_LENGTH),
    canonical:
      resolveHttpUrl(first('og:url'), base) ??
      resolveHttpUrl(
        link((l) => l.rel.includes('canonical')),
        base,
      ),
    siteName: cleanText(first('og:site_name', 'application-name'), MAX_TITLE_LENGTH),
    image:
      firstUrl('og:image:secure_url', 'og:image:url', 'og:image', 'twitter:image', 'twitter:image:src') ??
      resolveHttpUrl(
        link((l) => l.rel.includes('image_src')),
        base,
      ),
    oembed: resolveHttpUrl(
      link((l) => l.rel.includes('alternate') && l.type === 'application/json+oembed'),
      base,
    ),
    players,
  };
}

/** The fields of an oEmbed answer a preview uses (plain text only; its `html` is never read). */
export interface OEmbedInfo {
  title: string | null;
  providerName: string | null;
  thumbnail: string | null;
}

export function parseOEmbed(body: Buffer, base: URL): OEmbedInfo | null {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const text = (key: string): string | null => (typeof record[key] === 'string' ? record[key] : null);
  return {
    title: cleanText(text('title'), MAX_TITLE_LENGTH),
    providerName: cleanText(text('provider_name'), MAX_TITLE_LENGTH),
    thumbnail: resolveHttpUrl(text('thumbnail_url'), base),
  };
}

/** What the page-reading worker gets for one page (page-reader.ts): a URL travels as its text. */
export interface PageJob {
  body: Uint8Array;
  contentType: string | undefined;
  url: string;
}

/** `readPageMeta` as the worker calls it. */
export function readPageJob(job: PageJob): PageMeta {
  return readPageMeta(job.body, job.contentType, new URL(job.url));
}
