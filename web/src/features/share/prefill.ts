import { firstUrl } from '../messages/links';

/**
 * The rules of the share form (/share?title=&text=&url=&parent=&message=, product spec §2): what
 * the form starts with, from the query a share sheet or a link opened it with.
 */

/** What /share was asked to share. */
export interface ShareQuery {
  title: string;
  text: string;
  url: string;
  /** A message to reply to. */
  parent: string | null;
  /** An existing message to copy into another group. */
  message: string | null;
}

/** Reads the query of /share; missing fields are empty. */
export function readShareQuery(params: URLSearchParams): ShareQuery {
  const id = (name: string) => {
    const value = params.get(name)?.trim() ?? '';
    return value === '' ? null : value;
  };
  return {
    title: params.get('title') ?? '',
    text: params.get('text') ?? '',
    url: params.get('url')?.trim() ?? '',
    parent: id('parent'),
    message: id('message'),
  };
}

/**
 * The text the form starts with: the shared text, with the shared address on a line of its own
 * unless the text already holds it (share sheets often send the address in both fields).
 */
export function prefillText(text: string, url: string): string {
  const body = text.trim();
  if (url === '' || body.includes(url)) return body;
  return body === '' ? url : `${body}\n${url}`;
}

/**
 * The text of a message shared into another group: its own text, then a line saying where it came
 * from (`line`, already translated, with the original's address).
 */
export function sharedText(text: string | undefined, line: string): string {
  const body = (text ?? '').trimEnd();
  return body === '' ? line : `${body}\n\n${line}`;
}

/**
 * Whether a copy keeps its link card hidden: when the original's was, and when the first address of
 * the text is the origin line's (the card of a Kith page would only show its sign-in screen).
 */
export function copyHidesCard(originalHidden: boolean, originUrl: string | null, text: string): boolean {
  return originalHidden || (originUrl !== null && firstUrl(text) === originUrl);
}
