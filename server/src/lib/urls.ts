/**
 * URLs in a message's text, found with the rule of the 0.5.6 client (docs/api §1.10, §10.6):
 * `http://` or `https://` followed by anything up to the next space, newline or square bracket; a
 * leading `(` and a trailing `)` are dropped.
 */
const URL_RUN = /\(?https?:\/\/[^ \n[\]]*/g;

export function urlsInText(text: string | null | undefined): string[] {
  if (text === null || text === undefined || text === '') return [];
  const found: string[] = [];
  for (const match of text.matchAll(URL_RUN)) {
    let url = match[0];
    if (url.startsWith('(')) url = url.slice(1);
    if (url.endsWith(')')) url = url.slice(0, -1);
    if (/^https?:\/\/./.test(url)) found.push(url);
  }
  return found;
}

/** The first URL of a text (its link preview is the message's card picture), or null. */
export function firstUrlInText(text: string | null | undefined): string | null {
  return urlsInText(text)[0] ?? null;
}
