/**
 * Kith's light formatting (issue 20): the small Markdown subset a message or comment text may use,
 * parsed into a token tree that the web client renders as elements (never as an HTML string), and
 * turned back into readable plain text for cards, search snippets, notification titles and e-mails.
 *
 * The subset, chosen because it reads well as it is stored (the Zusam 0.5.6 client and e-mails
 * show the text as written):
 * - `**bold**`, `*italic*` or `_italic_`, `***both***`, inside one line;
 * - lines starting with `- ` or `* ` (bulleted list), `1. ` or `1) ` (numbered list, starting at
 *   that number), `> ` (quote, which may hold lists and quotes, three levels deep at most);
 * - `[text](https://…)` (also `http://` and `mailto:`), and bare `http(s)://` URLs as before.
 * Everything else is text: no raw HTML, no headings, no code, no images, no escapes. A marker that
 * is not closed stays as it was typed.
 *
 * Every step is linear in the length of the text: lines are read once, and the inline scanner
 * looks at each character a bounded number of times (no regular expression that can backtrack).
 */

/** A piece of a line. */
export type MarkupInline =
  | { type: 'text'; text: string }
  | { type: 'strong'; children: MarkupInline[] }
  | { type: 'em'; children: MarkupInline[] }
  /** `bare`: a URL written as such, whose text is the URL itself. */
  | { type: 'link'; href: string; bare: boolean; children: MarkupInline[] };

/** A block of a text. A paragraph's lines are joined by `\n` text, blank lines kept as typed. */
export type MarkupBlock =
  | { type: 'paragraph'; children: MarkupInline[] }
  | { type: 'list'; ordered: boolean; start: number; items: MarkupInline[][] }
  | { type: 'quote'; children: MarkupBlock[] };

/** Quotes inside quotes beyond this depth stay text, so nesting (and recursion) stays shallow. */
const MAX_QUOTE_DEPTH = 3;

// Anchored, each with one unambiguous repetition: no backtracking over the line.
const BULLET = /^ {0,3}[-*][ \t]+(\S.*)$/;
const ORDERED = /^ {0,3}(\d{1,9})[.)][ \t]+(\S.*)$/;
const QUOTE = /^ {0,3}>(?: (.*))?$/;

/** Parses a message text into blocks (an empty text gives none). */
export function parseMarkup(text: string): MarkupBlock[] {
  if (text === '') return [];
  return parseLines(text.split(/\r?\n/), 1);
}

function parseLines(lines: string[], depth: number): MarkupBlock[] {
  const blocks: MarkupBlock[] = [];
  let paragraph: string[] = [];
  // Whether the previous line was a list item: a list continues on the very next line only.
  let listOpen = false;
  const endParagraph = () => {
    if (paragraph.length === 0) return;
    const children: MarkupInline[] = [];
    paragraph.forEach((line, index) => {
      if (index > 0) children.push({ type: 'text', text: '\n' });
      // A loop rather than push(...): a line may hold tens of thousands of pieces.
      for (const node of parseInline(line, true)) children.push(node);
    });
    blocks.push({ type: 'paragraph', children: mergeText(children) });
    paragraph = [];
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    let quote = depth <= MAX_QUOTE_DEPTH ? QUOTE.exec(line) : null;
    if (quote !== null) {
      endParagraph();
      listOpen = false;
      const inner: string[] = [];
      while (quote !== null) {
        inner.push(quote[1] ?? '');
        i += 1;
        quote = i < lines.length ? QUOTE.exec(lines[i] ?? '') : null;
      }
      blocks.push({ type: 'quote', children: parseLines(inner, depth + 1) });
      continue;
    }
    const bullet = BULLET.exec(line);
    const ordered = bullet === null ? ORDERED.exec(line) : null;
    const content = bullet?.[1] ?? ordered?.[2];
    if (content !== undefined) {
      endParagraph();
      const isOrdered = ordered !== null;
      const item = parseInline(content.trimEnd(), true);
      const last = blocks.at(-1);
      if (listOpen && last?.type === 'list' && last.ordered === isOrdered) last.items.push(item);
      else
        blocks.push({
          type: 'list',
          ordered: isOrdered,
          start: ordered === null ? 1 : Number(ordered[1]),
          items: [item],
        });
      listOpen = true;
      i += 1;
      continue;
    }
    listOpen = false;
    paragraph.push(line);
    i += 1;
  }
  endParagraph();
  return blocks;
}

type Delimiter = { char: '*' | '_'; length: number; canOpen: boolean; canClose: boolean };
type Piece = MarkupInline | { type: 'delimiter'; delimiter: Delimiter };

const SPACE = /\s/u;
const WORD = /[\p{L}\p{N}]/u;
const DIGIT = /[0-9]/;

/** The code point just before `index`, or "" at the start. */
function charBefore(text: string, index: number): string {
  if (index <= 0) return '';
  const low = text.charCodeAt(index - 1);
  return text.slice(Math.max(0, index - (low >= 0xdc00 && low <= 0xdfff && index >= 2 ? 2 : 1)), index);
}

/** The code point at `index`, or "" at the end. */
function charAt(text: string, index: number): string {
  const code = text.codePointAt(index);
  return code === undefined ? '' : String.fromCodePoint(code);
}

// Sentence punctuation after a URL belongs to the sentence; `*` and `_` close a marker around it.
const URL_TRAILING = '.,;:!?*_\'"';

/**
 * The bare URL starting at `start` (which holds `http://` or `https://`): up to white space or a
 * square bracket, without trailing punctuation or closing parentheses that have no opening one
 * inside it ("(see https://example.com)" but "https://example.com/Foo_(bar)"); null without a host.
 */
function bareUrlAt(line: string, start: number): string | null {
  let end = start;
  let opened = 0;
  let closed = 0;
  while (end < line.length) {
    const ch = line[end] ?? '';
    if (ch === '[' || ch === ']' || SPACE.test(ch)) break;
    if (ch === '(') opened += 1;
    if (ch === ')') closed += 1;
    end += 1;
  }
  for (;;) {
    const last = line[end - 1] ?? '';
    if (URL_TRAILING.includes(last)) end -= 1;
    else if (last === ')' && closed > opened) {
      closed -= 1;
      end -= 1;
    } else break;
  }
  const url = line.slice(start, end);
  return /^https?:\/\/./.test(url) ? url : null;
}

const SAFE_HREF = /^(?:https?:\/\/.|mailto:[^@]+@.)/i;

/** Whether a link target may become a link: http(s) and mailto only (never javascript:, data:…). */
export function isSafeHref(href: string): boolean {
  return SAFE_HREF.test(href);
}

/**
 * `[label](target)` starting at `start` (a `[`), or null. The label holds no square bracket and the
 * target no white space, square or angle bracket; parentheses inside the target must balance. Both
 * scans stop at the first character they refuse, so no character is read by two failed attempts.
 */
function linkAt(line: string, start: number): { label: string; href: string; end: number } | null {
  let close = start + 1;
  while (close < line.length && line[close] !== ']' && line[close] !== '[') close += 1;
  if (line[close] !== ']' || close === start + 1 || line[close + 1] !== '(') return null;
  let end = close + 2;
  let depth = 0;
  for (; end < line.length; end += 1) {
    const ch = line[end] ?? '';
    if (ch === '[' || ch === ']' || ch === '<' || ch === '>' || SPACE.test(ch)) return null;
    if (ch === '(') depth += 1;
    else if (ch === ')') {
      if (depth === 0) break;
      depth -= 1;
    }
  }
  if (end >= line.length) return null;
  const href = line.slice(close + 2, end);
  if (!isSafeHref(href)) return null;
  return { label: line.slice(start + 1, close), href, end: end + 1 };
}

/** The pieces of one line: text, links, and the `*`/`_` runs that may open or close emphasis. */
function scan(line: string, links: boolean): Piece[] {
  const pieces: Piece[] = [];
  let text = '';
  const flush = () => {
    if (text !== '') pieces.push({ type: 'text', text });
    text = '';
  };
  let i = 0;
  while (i < line.length) {
    const ch = line[i] ?? '';
    if (links && ch === 'h' && (line.startsWith('https://', i) || line.startsWith('http://', i))) {
      const url = bareUrlAt(line, i);
      if (url !== null) {
        flush();
        pieces.push({ type: 'link', href: url, bare: true, children: [{ type: 'text', text: url }] });
        i += url.length;
        continue;
      }
    }
    if (links && ch === '[') {
      const link = linkAt(line, i);
      if (link !== null) {
        flush();
        pieces.push({ type: 'link', href: link.href, bare: false, children: parseInline(link.label, false) });
        i = link.end;
        continue;
      }
    }
    if (ch === '*' || ch === '_') {
      let end = i + 1;
      while (line[end] === ch) end += 1;
      const length = end - i;
      const before = charBefore(line, i);
      const after = charAt(line, end);
      let canOpen = after !== '' && !SPACE.test(after);
      let canClose = before !== '' && !SPACE.test(before);
      // snake_case_words stay words; 2*3*4 stays arithmetic.
      if (ch === '_' && WORD.test(before)) canOpen = false;
      if (ch === '_' && WORD.test(after)) canClose = false;
      if (ch === '*' && DIGIT.test(before) && DIGIT.test(after)) canOpen = canClose = false;
      flush();
      if (length <= 3 && (canOpen || canClose)) {
        pieces.push({ type: 'delimiter', delimiter: { char: ch, length, canOpen, canClose } });
      } else {
        pieces.push({ type: 'text', text: line.slice(i, end) });
      }
      i = end;
      continue;
    }
    text += ch;
    i += 1;
  }
  flush();
  return pieces;
}

/**
 * Emphasis from the delimiter runs, left to right: a run closes the nearest open run of the same
 * character and length, and the runs opened in between stay text. One run of each kind is open at a
 * time (a second opener of that kind stays text), so nesting is at most six levels deep. Each piece
 * is moved into a parent at most once per level, so the whole is linear.
 */
function parseInline(line: string, links: boolean): MarkupInline[] {
  const out: MarkupInline[] = [];
  // Open runs, innermost last: their kind and the index in `out` of their text placeholder.
  const open: { kind: string; length: number; at: number }[] = [];
  for (const piece of scan(line, links)) {
    if (piece.type !== 'delimiter') {
      out.push(piece);
      continue;
    }
    const { char, length, canOpen, canClose } = piece.delimiter;
    const kind = char.repeat(length);
    const match = canClose ? open.findLastIndex((o) => o.kind === kind) : -1;
    if (match !== -1) {
      const opener = open[match];
      open.length = match;
      if (opener !== undefined) {
        const children = mergeText(out.splice(opener.at + 1));
        out[opener.at] = emphasis(length, children);
      }
      continue;
    }
    if (canOpen && !open.some((o) => o.kind === kind)) open.push({ kind, length, at: out.length });
    out.push({ type: 'text', text: kind });
  }
  return mergeText(out);
}

function emphasis(length: number, children: MarkupInline[]): MarkupInline {
  if (length === 1) return { type: 'em', children };
  if (length === 2) return { type: 'strong', children };
  return { type: 'strong', children: [{ type: 'em', children }] };
}

/** Joins neighbouring text pieces. */
function mergeText(nodes: MarkupInline[]): MarkupInline[] {
  const merged: MarkupInline[] = [];
  for (const node of nodes) {
    const last = merged.at(-1);
    if (node.type === 'text' && last?.type === 'text') last.text += node.text;
    else if (node.type !== 'text' || node.text !== '') merged.push(node.type === 'text' ? { ...node } : node);
  }
  return merged;
}

/** The text of inline pieces without their markers; a link reads `text (url)`. */
export function inlinePlainText(nodes: MarkupInline[]): string {
  let out = '';
  for (const node of nodes) {
    if (node.type === 'text') out += node.text;
    else if (node.type === 'link') {
      const label = inlinePlainText(node.children);
      out += node.bare || label === node.href ? node.href : `${label} (${node.href})`;
    } else out += inlinePlainText(node.children);
  }
  return out;
}

/** The plain text of parsed blocks (plainText without its shortcut for texts that have no marker). */
export function blocksPlainText(blocks: MarkupBlock[]): string {
  return blocks
    .map((block) => {
      if (block.type === 'paragraph') return inlinePlainText(block.children);
      if (block.type === 'list') {
        return block.items
          .map((item, index) => `${block.ordered ? `${block.start + index}.` : '-'} ${inlinePlainText(item)}`)
          .join('\n');
      }
      return blocksPlainText(block.children)
        .split('\n')
        .map((line) => (line === '' ? '>' : `> ${line}`))
        .join('\n');
    })
    .join('\n');
}

// A text with none of these reads the same as its plain text: no marker character, no `\r`, and
// no line that could open a list or a quote. Most texts are such, and cost one scan.
const MAY_FORMAT = /[*_[\r]|^[ \t]*(?:[->]|\d{1,9}[.)])/m;

/**
 * The readable plain text of a formatted text: markers removed (`**b**` → `b`), links as
 * `text (url)`, list items as `- ` or `1. ` lines, quoted lines after `> `. Line breaks are kept.
 */
export function plainText(text: string): string {
  if (!MAY_FORMAT.test(text)) return text;
  return blocksPlainText(parseMarkup(text));
}

const MAY_LINK = /https?:/i;

/**
 * The http(s) targets of a text's links, in order, each once (mailto: links are left out); with
 * `first`, only the first one. Links never span lines and no block marker can start or end one,
 * so each line is scanned on its own (the same scanner as parseMarkup), and only lines that name
 * a scheme: a feed page asks this of every card.
 */
export function markupLinks(text: string, first = false): string[] {
  const found = new Set<string>();
  for (const line of text.split('\n')) {
    if (!MAY_LINK.test(line)) continue;
    for (const piece of scan(line, true)) {
      if (piece.type === 'link' && /^https?:/i.test(piece.href)) {
        found.add(piece.href);
        if (first) return [...found];
      }
    }
  }
  return [...found];
}
