// @mentions (issue 21): the stored text keeps exactly what was typed (`@Ana Silva, can you…`), and a
// mention is `@` followed by the mentioned person's name as it was written. One rule decides where
// such a run counts, shared by the server (which mentions a text still holds) and the web client
// (which runs of the text it highlights).

/** Letters, marks and digits of any script: what may not touch a mention on either side. */
const WORD_CHAR = /[\p{L}\p{M}\p{N}_]/u;

/**
 * The positions of `@name` in `text` that count as a mention: the `@` starts the text or follows a
 * character that is not part of a word (so `ana@example.org` is no mention), and the name is not
 * followed by a word character (so `@Ana` is not found in `@Anabel`). Linear in the text's length
 * for one name (indexOf, then two character checks per candidate).
 */
export function mentionOffsets(text: string, name: string): number[] {
  const found: number[] = [];
  if (name === '') return found;
  const needle = `@${name}`;
  let from = 0;
  for (;;) {
    const at = text.indexOf(needle, from);
    if (at < 0) return found;
    const before = at === 0 ? '' : text.slice(Math.max(0, at - 2), at);
    const after = text.slice(at + needle.length, at + needle.length + 2);
    const beforeOk = before === '' || !WORD_CHAR.test(lastChar(before));
    const afterOk = after === '' || !WORD_CHAR.test(firstChar(after));
    if (beforeOk && afterOk) found.push(at);
    from = at + needle.length;
  }
}

/** Whether `text` mentions `name` at least once (see mentionOffsets). */
export function hasMention(text: string | null, name: string): boolean {
  return text !== null && mentionOffsets(text, name).length > 0;
}

// A surrogate pair counts as one character, so a letter outside the BMP is seen whole.
function lastChar(s: string): string {
  return Array.from(s).at(-1) ?? '';
}
function firstChar(s: string): string {
  return Array.from(s)[0] ?? '';
}
