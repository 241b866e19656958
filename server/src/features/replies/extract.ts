import { ATTRIBUTION_MARK, htmlToText } from './html.js';
import { FOOTERS, FROM_FIELDS, OTHER_FIELDS, SEPARATORS, WROTE_VERBS, normalizeMarker } from './markers.js';

/**
 * Marker checks look only at lines up to this long: every header, separator and footer is far
 * shorter, and a bound keeps each check cheap on a hostile 5 MB line.
 */
const MAX_MARKER_LINE = 400;

/** How many lines under a "From:" line may hold the rest of Outlook's header block. */
const HEADER_BLOCK_LINES = 8;

/** How much longer than its footer phrase a footer line may be ("Sent from my iPhone 15 Pro"). */
const FOOTER_SLACK = 30;

// Where a picture stood in the HTML, the text part says "[image: IMG_4821.jpeg]" (Gmail) or
// "[cid:image001.jpg@01DB4A2C.5E6F7A80]" (Outlook): the picture itself becomes a file of the comment.
const IMAGE_PLACEHOLDER = /^\s*\[(image: [^\]]*|cid:[^\]\s]*)\]\s*$/i;

// A line ending in an address and a colon: Gmail's Russian attribution has no verb
// ("пт, 27 нояб. 2026 г. в 10:00, Kith <kith@example.org>:"). Only tried on short lines.
const ENDS_WITH_ADDRESS = /<\s?[^<>\s@]+@[^<>\s]+>\)?\s*[:：]$/;

// The first letters of the footers: most lines are turned down on this alone.
const FOOTER_INITIALS = new Set(FOOTERS.map((footer) => footer.charAt(0)));

const LETTER = /[\p{L}\p{M}]/u;
const HAN = /\p{Script=Han}/u;

function isBlank(line: string): boolean {
  return line.trim() === '';
}

function isQuoted(line: string): boolean {
  return line.trimStart().startsWith('>');
}

/** Whether `word` appears in `text` as a word (scripts written without spaces need no boundary). */
function containsWord(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
    const before = text.charAt(at - 1);
    const after = text.charAt(at + word.length);
    const first = word.charAt(0);
    const last = word.charAt(word.length - 1);
    const startOk = before === '' || HAN.test(first) || !LETTER.test(before);
    const endOk = after === '' || HAN.test(last) || !LETTER.test(after);
    if (startOk && endOk) return true;
  }
  return false;
}

/**
 * Whether a line is an attribution ("On <date>, <name> wrote:" in any of the languages): it ends
 * with a colon, holds a digit (the date) and a "wrote" verb, or ends with the sender's address.
 * A line of the reply that merely starts with "On" has neither.
 */
function isAttribution(line: string): boolean {
  if (line.length > 2 * MAX_MARKER_LINE) return false;
  const end = line.trimEnd();
  if (end.trimStart() === ATTRIBUTION_MARK) return true;
  // The cheap test first: most lines of a long mail end otherwise.
  if (!end.endsWith(':') && !end.endsWith('：')) return false;
  const text = normalizeMarker(line);
  if (text.length > MAX_MARKER_LINE || text.length < 6) return false;
  if (!/[0-9]/.test(text)) return false;
  return WROTE_VERBS.some((verb) => containsWord(text, verb)) || ENDS_WITH_ADDRESS.test(text);
}

/** The field name of a header line ("From: Kith" → "from"), Outlook's bold stars and French spacing allowed. */
function headerField(line: string): string | null {
  if (line.length > MAX_MARKER_LINE) return null;
  const text = line.trim().replace(/^\*+/, '');
  const colon = text.search(/[:：]/);
  if (colon <= 0 || colon > 30) return null;
  return normalizeMarker(text.slice(0, colon).replace(/\*+$/, ''));
}

/**
 * Whether Outlook's quoted header block ("From: … Sent: … To: … Subject: …") starts at line `i`.
 * `fields` keeps each line's field name once read, as up to `HEADER_BLOCK_LINES` checks read it.
 */
function startsHeaderBlock(lines: string[], i: number, fields: (string | null | undefined)[]): boolean {
  const fieldOf = (k: number): string | null => {
    let field = fields[k];
    if (field === undefined) {
      field = headerField(lines[k] ?? '');
      fields[k] = field;
    }
    return field;
  };
  const field = fieldOf(i);
  if (field === null || !FROM_FIELDS.has(field)) return false;
  let others = 0;
  for (let j = i + 1; j < lines.length && j <= i + HEADER_BLOCK_LINES; j += 1) {
    const next = fieldOf(j);
    if (next !== null && OTHER_FIELDS.has(next)) others += 1;
    if (others >= 2) return true;
  }
  return false;
}

/** Whether a line is a dashed separator ("-----Original Message-----") in any of the languages. */
function isSeparator(line: string): boolean {
  const text = line.trim();
  if (text.length > MAX_MARKER_LINE || !text.startsWith('--')) return false;
  const inner = text.replace(/^-+/, '').replace(/-+$/, '');
  return SEPARATORS.has(normalizeMarker(inner));
}

/** Outlook's line of underscores above its header block. */
function isUnderscoreRule(line: string): boolean {
  const text = line.trim();
  return text.length >= 20 && text.length <= MAX_MARKER_LINE && /^_+$/.test(text);
}

/** A mail program's footer ("Sent from my iPhone", "Get Outlook for Android") in any of the languages. */
function isFooter(line: string): boolean {
  if (line.length > MAX_MARKER_LINE) return false;
  const first = line.trimStart().charAt(0).toLowerCase();
  if (!FOOTER_INITIALS.has(first)) return false;
  const text = normalizeMarker(line);
  return FOOTERS.some((footer) => text.startsWith(footer) && text.length <= footer.length + FOOTER_SLACK);
}

/** Where the reply certainly ends: a signature, a separator or Outlook's quoted header block. */
function isHardCut(lines: string[], i: number, fields: (string | null | undefined)[]): boolean {
  const line = lines[i] ?? '';
  // The signature delimiter is exactly "-- " (RFC 3676); "--" alone is Markdown (a heading underline).
  return line === '-- ' || isSeparator(line) || isUnderscoreRule(line) || startsHeaderBlock(lines, i, fields);
}

function isImagePlaceholder(line: string): boolean {
  return line.length <= MAX_MARKER_LINE && IMAGE_PLACEHOLDER.test(line);
}

function nextNonBlank(lines: string[], from: number): number {
  let j = from;
  while (j < lines.length && isBlank(lines[j] ?? '')) j += 1;
  return j;
}

/** How many lines (0, 1 or 2: Gmail's wrapped over two) the attribution starting at line `i` takes. */
function attributionSpan(lines: string[], i: number): number {
  const line = lines[i] ?? '';
  if (isAttribution(line)) return 1;
  const next = lines[i + 1];
  if (next === undefined || isBlank(next) || isQuoted(next) || line.length > MAX_MARKER_LINE / 2) return 0;
  // A line ending in "<" is the name before an address wrapped to the next line ("Kith <" /
  // "kith@example.org> ezt írta (…):"); otherwise a next line that is an attribution on its own
  // leaves this one to the reply.
  if (!line.trimEnd().endsWith('<') && isAttribution(next)) return 0;
  return isAttribution(`${line} ${next}`) ? 2 : 0;
}

interface Piece {
  kind: 'text' | 'blank' | 'quote';
  lines: string[];
  /** For a quote: an attribution stood right above it, or is its own first line. */
  attributed: boolean;
}

/**
 * The text a person wrote in a plain-text reply: cut at the first reply header, separator,
 * signature or footer; trailing `>` quotes dropped, and the one quote a bottom-poster answers
 * under; quotes between answers (interleaved replies) kept.
 */
function stripText(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  // Lines of attributions that head a quote: dropped, the quote under them marked as history.
  const attribution = new Uint8Array(lines.length);
  const fields: (string | null | undefined)[] = [];
  let end = lines.length;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (isBlank(line) || isQuoted(line)) continue;
    if (isHardCut(lines, i, fields)) {
      end = i;
      break;
    }
    if (isFooter(line)) {
      // Only a footer that ends what the person wrote: a sentence that starts the same way stays.
      const j = nextNonBlank(lines, i + 1);
      if (
        j >= lines.length ||
        isQuoted(lines[j] ?? '') ||
        attributionSpan(lines, j) > 0 ||
        isHardCut(lines, j, fields)
      ) {
        end = i;
        break;
      }
      continue;
    }
    const span = attributionSpan(lines, i);
    if (span === 0) continue;
    const j = nextNonBlank(lines, i + span);
    if (j < lines.length && isQuoted(lines[j] ?? '')) {
      for (let k = i; k < i + span; k += 1) attribution[k] = 1;
      i += span - 1;
      continue;
    }
    // An attribution over nothing, or over an unquoted copy of the mail (written by programs that
    // do not quote with ">": those lines hold the sender's address). Thunderbird's cite prefix
    // heads history whatever follows it.
    const addressed = line.includes('@') || (lines[i + span - 1] ?? '').includes('@');
    if (j >= lines.length || addressed || line.trim() === ATTRIBUTION_MARK) {
      end = i;
      break;
    }
  }

  // The kept lines as runs: text, blank lines, quotes (blank lines between quoted lines included).
  const pieces: Piece[] = [];
  let pendingAttribution = false;
  let droppedPlaceholder = false;
  for (let i = 0; i < end; i += 1) {
    const line = lines[i] ?? '';
    if (attribution[i] === 1) {
      pendingAttribution = true;
      continue;
    }
    if (isImagePlaceholder(line)) {
      droppedPlaceholder = true;
      continue;
    }
    const kind = isQuoted(line) ? 'quote' : isBlank(line) ? 'blank' : 'text';
    const last = pieces[pieces.length - 1];
    // The blank lines on both sides of a dropped placeholder become one.
    if (kind === 'blank' && last?.kind === 'blank' && droppedPlaceholder) continue;
    if (kind !== 'blank') droppedPlaceholder = false;
    if (
      kind === 'quote' &&
      last?.kind === 'blank' &&
      pieces[pieces.length - 2]?.kind === 'quote' &&
      !pendingAttribution
    ) {
      // A blank line inside a quote: the quote goes on.
      pieces.pop();
      const quote = pieces[pieces.length - 1];
      // One line at a time: spreading a run of a million lines would overflow the stack.
      for (const blank of last.lines) quote?.lines.push(blank);
      quote?.lines.push(line);
      continue;
    }
    if (last !== undefined && last.kind === kind && !(kind === 'quote' && pendingAttribution)) {
      last.lines.push(line);
      continue;
    }
    const attributed =
      kind === 'quote' && (pendingAttribution || isAttribution(line.trimStart().replace(/^(>\s?)+/, '')));
    pieces.push({ kind, lines: [line], attributed });
    if (kind !== 'blank') pendingAttribution = false;
  }

  // Trailing quotes are the history under a top-posted answer.
  while (pieces.length > 0 && pieces[pieces.length - 1]?.kind !== 'text') pieces.pop();
  // One quote left, under an attribution, with the answer below it: a bottom-posted reply.
  // More than one: an interleaved answer, where the quotes say what each part answers.
  const quotes = pieces.filter((piece) => piece.kind === 'quote');
  const [onlyQuote] = quotes;
  if (quotes.length === 1 && onlyQuote?.attributed === true) pieces.splice(pieces.indexOf(onlyQuote), 1);

  const out: string[] = [];
  for (const piece of pieces) {
    // Where history was taken out, the blank lines on both sides of it become one.
    if (piece.kind === 'blank' && (out.length === 0 || isBlank(out[out.length - 1] ?? ''))) continue;
    for (const line of piece.lines) out.push(line);
  }
  // The mark never reaches a comment, even where no rule above took its line.
  return out.join('\n').replaceAll(ATTRIBUTION_MARK, '').trim();
}

/**
 * The new text a person wrote in an e-mail reply, for a comment: the plain-text part when it has
 * any text, else the HTML part converted to text; without quoted history, attribution lines,
 * signatures and mail-app footers; trimmed, and '' when nothing is left.
 */
export function extractReply(parts: { text?: string | undefined; html?: string | undefined }): string {
  const text = parts.text?.replaceAll(ATTRIBUTION_MARK, '');
  if (text !== undefined && text.trim() !== '') return stripText(text);
  if (parts.html !== undefined && parts.html.trim() !== '') return stripText(htmlToText(parts.html));
  return '';
}
