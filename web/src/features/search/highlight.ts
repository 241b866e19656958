/** A piece of a search snippet: plain text, marked or not. */
export interface SnippetPart {
  text: string;
  marked: boolean;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * Cuts a snippet into plain and marked pieces by the server's `[start, end)` ranges (UTF-16
 * offsets, docs/api §6.8). Ranges are clamped to the text, sorted and merged, and widened so a
 * boundary never falls inside a surrogate pair (an emoji is never cut in half). The pieces are
 * rendered as React text nodes, so nothing in the snippet is ever read as markup.
 */
export function snippetParts(text: string, highlights: readonly (readonly [number, number])[]): SnippetPart[] {
  const ranges = highlights
    .map(([start, end]): [number, number] => {
      let from = Math.max(0, Math.min(text.length, Math.trunc(start)));
      let to = Math.max(0, Math.min(text.length, Math.trunc(end)));
      if (from > 0 && from < text.length && isLowSurrogate(text.charCodeAt(from))) from -= 1;
      if (to > 0 && to < text.length && isLowSurrogate(text.charCodeAt(to))) to += 1;
      return [from, to];
    })
    .filter(([from, to]) => to > from)
    .sort((a, b) => a[0] - b[0]);
  const parts: SnippetPart[] = [];
  let cursor = 0;
  for (const [from, to] of ranges) {
    if (to <= cursor) continue;
    const start = Math.max(from, cursor);
    if (start > cursor) parts.push({ text: text.slice(cursor, start), marked: false });
    const last = parts.at(-1);
    // An overlapping or touching range extends the mark before it.
    if (last?.marked && start === cursor) last.text += text.slice(start, to);
    else parts.push({ text: text.slice(start, to), marked: true });
    cursor = to;
  }
  if (cursor < text.length) parts.push({ text: text.slice(cursor), marked: false });
  return parts;
}
