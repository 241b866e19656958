import { Parser } from 'htmlparser2';

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
export function decodeHtml(body: Buffer, contentType: string | undefined): string {
  let charset = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  if (charset === undefined) {
    const head = body.subarray(0, 2048).toString('latin1');
    charset = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  }
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** Reads the page's metadata. Works on a page cut anywhere (the 2 MiB cap). */
export function parseHtml(html: string, base: URL): PageMeta {
  const meta = new Map<string, string>();
  const links: { rel: string[]; type: string; href: string }[] = [];
  let title: string | null = null;
  let titleText: string[] | null = null;
  // <title> inside <svg> is not the page title.
  let svgDepth = 0;

  const parser = new Parser(
    {
      onopentag(name, attribs) {
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
      onclosetag(name) {
        if (name === 'svg' && svgDepth > 0) svgDepth -= 1;
        if (name === 'title' && titleText !== null) {
          title = titleText.join('');
          titleText = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();

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
