import { Parser } from 'htmlparser2';

/**
 * A line the HTML conversion writes where Thunderbird's attribution ("On … wrote:",
 * `div.moz-cite-prefix`) stood, whatever its language: the text rules then treat the quote under it
 * as the quoted history. A private-use character, removed from every input first, so no mail can
 * forge it.
 */
export const ATTRIBUTION_MARK = '\uE000';

/**
 * How deep elements may nest before the conversion stops with what it has. htmlparser2 pays the
 * current depth at every tag (features/links/parse.ts), so capped the cost stays linear; no mail
 * program nests a reply anywhere near this.
 */
const MAX_NESTING = 512;

/** Link texts longer than this are never compared with their URL. */
const MAX_LINK_TEXT = 4096;

/** Nested quotes are written with at most this many `>`, so deep nesting cannot multiply the output. */
const MAX_QUOTE_MARKS = 3;

// Elements whose content is never text a person wrote.
const HIDDEN = new Set([
  'head',
  'title',
  'script',
  'style',
  'template',
  'noscript',
  'svg',
  'math',
  'object',
  'iframe',
  'xml',
]);

// Elements that start and end a line.
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'dd',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'main',
  'nav',
  'section',
  'table',
  'tbody',
  'thead',
  'tfoot',
  'tr',
  'center',
]);

// Whitespace as HTML collapses it (not U+00A0: that one is turned into a plain space separately).
const HTML_SPACE = /[ \t\n\r\f]+/g;

interface OpenElement {
  /** Its content is dropped (hidden, a quote container, a signature). */
  hides: boolean;
  quote: boolean;
  list: boolean;
  pre: boolean;
  paragraph: boolean;
  block: boolean;
  /** An http(s) or mailto link: where its text starts in the current line (its piece, its length). */
  link: { href: string; line: number; part: number; length: number } | null;
}

/** Whether an element opens the quoted history of Outlook: everything from there on is the old mail. */
function startsOutlookHistory(name: string, id: string, style: string): boolean {
  // Outlook on the web and new Outlook: `<div id="appendonsend">`, `<div id="divRplyFwdMsg">`, and
  // the container of the quoted mail; Outlook for Windows: the header block's top border.
  if (id === 'appendonsend' || id === 'divrplyfwdmsg' || id === 'mail-editor-reference-message-container') return true;
  return name === 'div' && style.includes('border-top') && /border\s*:\s*none/.test(style);
}

/** Whether an element holds only quoted history or a signature, dropped with its content. */
function isDroppedContainer(name: string, classes: string[], id: string, attribs: Record<string, string>): boolean {
  // Gmail wraps the attribution and the quote in div.gmail_quote (with gmail_quote_container in newer
  // mails); its signature is div.gmail_signature after a span.gmail_signature_prefix "-- ".
  if (name === 'div' && classes.includes('gmail_quote')) return true;
  if (classes.includes('gmail_quote_container') || classes.includes('gmail_signature')) return true;
  if (classes.includes('gmail_signature_prefix') || attribs['data-smartmail'] === 'gmail_signature') return true;
  // Thunderbird's signature; Outlook's (id="Signature"); Yahoo Mail's quote.
  if (classes.includes('moz-signature') || id === 'signature' || classes.includes('yahoo_quoted')) return true;
  // Text a reader never sees (the preview line of a newsletter, Kith's own included), and the
  // bullet Outlook types before a list item (`mso-list:Ignore`): the item gets "- " instead.
  return /display\s*:\s*none|mso-list\s*:\s*ignore/.test((attribs.style ?? '').toLowerCase());
}

/** Whether a written line is empty but for its quote marks. */
function isBlankLine(line: string): boolean {
  return /^[> ]*$/.test(line);
}

/** Whether a URL is worth writing out in the text: a web or mail address, not an anchor or an inline part. */
function isShownUrl(href: string): boolean {
  return /^(https?:|mailto:)/i.test(href);
}

/**
 * The text of an HTML mail body, for the reply rules of extract.ts: paragraphs, `<br>` and `<div>`
 * become line breaks, list items "- ", links "text (url)" (just the text where it is the URL),
 * entities decoded, scripts and styles dropped. Gmail's and Outlook's quoted history and the
 * signature containers are dropped here; blockquotes (Apple Mail's and Thunderbird's quotes) are
 * written as `>` lines and Thunderbird's attribution as `ATTRIBUTION_MARK`, so that the text rules
 * decide, as for a plain-text mail, whether they are history or an interleaved answer.
 */
export function htmlToText(html: string): string {
  const lines: string[] = [];
  // The current line as its pieces of text: a string grown by `+=` and then read (`endsWith`) is
  // flattened at every read, which made a 5 MB run of tiny text nodes quadratic.
  let current: string[] = [];
  let currentEndsWithSpace = false;
  let currentLength = 0;
  // The `>` prefix of the current line, fixed when its first text is written.
  let currentPrefix = '';
  let quoteDepth = 0;
  let hiddenDepth = 0;
  let listDepth = 0;
  let preDepth = 0;
  let blankWanted = false;
  let stopped = false;
  const stack: OpenElement[] = [];

  const prefix = (): string => '> '.repeat(Math.min(quoteDepth, MAX_QUOTE_MARKS));
  const pushLine = (line: string) => lines.push(line);
  const blankLine = (): string => prefix().trimEnd();
  // Ends the current line if it has text.
  const endLine = () => {
    if (current.length > 0) {
      pushLine(currentPrefix + current.join('').trimEnd());
      current = [];
      currentEndsWithSpace = false;
      currentLength = 0;
    }
  };
  // A `<br>`: ends the current line even when empty, which is how mail editors write blank lines.
  const lineBreak = () => {
    if (current.length > 0) endLine();
    else pushLine(blankLine());
  };
  // `collapsible`: whether the text ends in a space that swallows the next one (not an `&nbsp;`).
  const write = (text: string, collapsible = text.endsWith(' ')) => {
    if (text === '') return;
    if (current.length === 0) {
      const previous = lines[lines.length - 1];
      if (blankWanted && previous !== undefined && !isBlankLine(previous)) {
        // The blank line between a paragraph and a quote belongs to neither: it is not quoted.
        pushLine(previous.startsWith('>') ? blankLine() : '');
      }
      blankWanted = false;
      currentPrefix = prefix();
    }
    current.push(text);
    currentLength += text.length;
    currentEndsWithSpace = collapsible;
  };
  const writeText = (raw: string) => {
    if (preDepth > 0) {
      const parts = raw.replace(/\u00a0/g, ' ').split('\n');
      parts.forEach((part, index) => {
        if (index > 0) lineBreak();
        write(part);
      });
      return;
    }
    // Collapsible whitespace goes at the start of a line; `&nbsp;` stays, as browsers show it
    // (indented lines, and Outlook's `<p class=MsoNormal>&nbsp;</p>`, a blank line once trimmed).
    let text = raw.replace(HTML_SPACE, ' ');
    if ((current.length === 0 || currentEndsWithSpace) && text.startsWith(' ')) text = text.slice(1);
    write(text.replace(/\u00a0/g, ' '), text.endsWith(' '));
  };

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (stopped) return;
        if (stack.length >= MAX_NESTING) {
          stopped = true;
          parser.pause();
          return;
        }
        const element: OpenElement = {
          hides: false,
          quote: false,
          list: false,
          pre: false,
          paragraph: false,
          block: false,
          link: null,
        };
        stack.push(element);
        if (hiddenDepth > 0) {
          element.hides = true;
          hiddenDepth += 1;
          return;
        }
        const id = (attribs.id ?? '').trim().toLowerCase();
        const classes = (attribs.class ?? '').toLowerCase().split(/\s+/);
        const style = (attribs.style ?? '').toLowerCase();
        if (startsOutlookHistory(name, id, style)) {
          stopped = true;
          parser.pause();
          return;
        }
        if (HIDDEN.has(name) || isDroppedContainer(name, classes, id, attribs)) {
          element.hides = true;
          hiddenDepth += 1;
          return;
        }
        if (classes.includes('moz-cite-prefix')) {
          endLine();
          // Inside a quote it heads older history, which goes with the quote anyway.
          if (quoteDepth === 0) pushLine(ATTRIBUTION_MARK);
          element.hides = true;
          hiddenDepth += 1;
          return;
        }
        switch (name) {
          case 'br':
            lineBreak();
            return;
          case 'blockquote':
            endLine();
            element.block = true;
            // Gmail's "indent" button writes a borderless blockquote: the person's own text, moved right.
            if (attribs.type?.toLowerCase() !== 'cite' && /border\s*:\s*none/.test(style)) return;
            quoteDepth += 1;
            element.quote = true;
            return;
          case 'ul':
          case 'ol':
            endLine();
            // A list stands apart from the paragraphs around it; a nested one goes on its item's line.
            if (listDepth === 0) blankWanted = true;
            listDepth += 1;
            element.list = true;
            return;
          case 'li':
            endLine();
            write(`${'  '.repeat(Math.max(0, listDepth - 1))}- `);
            element.block = true;
            return;
          case 'p': {
            endLine();
            element.block = true;
            // Outlook writes a list item as p.MsoListParagraph (…CxSpFirst, …CxSpMiddle, …CxSpLast).
            if (classes.some((name) => name.startsWith('msolistparagraph'))) {
              write('- ');
              return;
            }
            // Outlook writes every line as a margin-less p.MsoNormal, with empty ones for blank lines.
            element.paragraph = !classes.includes('msonormal');
            if (element.paragraph) blankWanted = true;
            return;
          }
          case 'pre':
            endLine();
            preDepth += 1;
            element.pre = true;
            element.block = true;
            return;
          case 'td':
          case 'th':
            if (current.length > 0 && !currentEndsWithSpace) write(' ');
            return;
          case 'a': {
            const href = (attribs.href ?? '').trim();
            if (isShownUrl(href))
              element.link = { href, line: lines.length, part: current.length, length: currentLength };
            return;
          }
          default:
            if (BLOCKS.has(name)) {
              endLine();
              element.block = true;
            }
        }
      },
      ontext(text) {
        if (!stopped && hiddenDepth === 0) writeText(text);
      },
      onclosetag() {
        if (stopped) return;
        const element = stack.pop();
        if (element === undefined) return;
        if (element.hides) {
          hiddenDepth -= 1;
          return;
        }
        if (element.link !== null) {
          const { href, line, part, length } = element.link;
          // Only a short link text can be the URL itself; reading a long one at every closing link
          // would cost its length times the nesting.
          const short = line === lines.length && currentLength - length <= MAX_LINK_TEXT;
          const text = short ? current.slice(part).join('').trim() : null;
          const bare = href.replace(/^mailto:/i, '');
          const same =
            text !== null && [href, bare, href.replace(/\/$/, ''), href.replace(/^https?:\/\//i, '')].includes(text);
          if (text === '') writeText(bare);
          else if (!same) write(` (${bare})`);
        }
        if (element.quote) {
          endLine();
          quoteDepth -= 1;
        }
        if (element.list) {
          endLine();
          listDepth -= 1;
          if (listDepth === 0) blankWanted = true;
        }
        if (element.pre) preDepth -= 1;
        if (element.block) endLine();
        if (element.paragraph) blankWanted = true;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html.replaceAll(ATTRIBUTION_MARK, ''));
  if (!stopped) parser.end();
  endLine();

  // Runs of blank lines (margins, empty paragraphs) collapse into one.
  const out: string[] = [];
  for (const line of lines) {
    const previous = out[out.length - 1];
    if (isBlankLine(line) && (previous === undefined || isBlankLine(previous))) continue;
    out.push(line);
  }
  return out.join('\n').trim();
}
