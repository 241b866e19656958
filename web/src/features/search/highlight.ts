/** A piece of a search snippet: plain text, marked or not. */
export interface SnippetPart {
  text: string;
  marked: boolean;
}

// charCodeAt past either end is NaN, which is no surrogate.
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
const clamp = (offset: number, length: number) => Math.max(0, Math.min(length, Math.trunc(offset)));

/**
 * Cuts a snippet into plain and marked pieces by the server's `[start, end)` ranges (UTF-16
 * offsets, docs/api §6.8). Ranges are clamped to the text, sorted and merged, and widened so a
 * boundary never falls inside a surrogate pair (an emoji is never cut in half). The pieces are
 * rendered as React text nodes, so nothing in the snippet is ever read as markup.
 */
export function snippetParts(text: string, highlights: readonly (readonly [number, number])[]): SnippetPart[] {
  const ranges = highlights
    .map(([start, end]): [number, number] => [clamp(start, text.length), clamp(end, text.length)])
    .filter(([from, to]) => to > from)
    .map(([from, to]): [number, number] => [
      from > 0 && isLowSurrogate(text.charCodeAt(from)) ? from - 1 : from,
      isLowSurrogate(text.charCodeAt(to)) ? to + 1 : to,
    ])
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
