import { markupLinks } from '@kith/common';

/**
 * URLs found with the rule of the 0.5.6 client (docs/api §1.10, §10.6): `http://` or `https://`
 * followed by anything up to the next space, newline or square bracket; a leading `(` and a
 * trailing `)` are dropped.
 */
const URL_RUN = /\(?https?:\/\/[^ \n[\]]*/g;

function zusamUrls(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(URL_RUN)) {
    let url = match[0];
    if (url.startsWith('(')) url = url.slice(1);
    if (url.endsWith(')')) url = url.slice(0, -1);
    if (/^https?:\/\/./.test(url)) found.push(url);
  }
  return found;
}

/**
 * Every URL a client may find in a text and ask a preview of: those of the 0.5.6 client's rule,
 * then the links of Kith's formatting (common/src/markup.ts) that differ, such as the target of
 * `[text](https://example.org).` without its `).`. Access to a preview (public grants, preview
 * images) accepts any of them.
 */
export function urlsInText(text: string | null | undefined): string[] {
  if (text === null || text === undefined || text === '') return [];
  return [...new Set([...zusamUrls(text), ...markupLinks(text)])];
}

/**
 * The first link of a text as Kith's client shows it (common/src/markup.ts: the target of a
 * `[text](url)` link, or a bare URL without trailing punctuation or markers): its link preview is
 * the message's card picture and its link card. Null without one.
 */
export function firstUrlInText(text: string | null | undefined): string | null {
  if (text === null || text === undefined || text === '') return null;
  return markupLinks(text, true)[0] ?? null;
}
