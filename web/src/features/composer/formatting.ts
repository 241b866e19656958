/**
 * The composer's formatting actions (issue 20, the subset of common/src/markup.ts) as pure edits of
 * a text and its selection: what to replace, with what, and what to select afterwards. The toolbar
 * and the shortcuts apply them to the textarea (FormatToolbar.tsx).
 */

export type FormatAction = 'bold' | 'italic' | 'bullets' | 'numbers' | 'quote' | 'link';

/** The text's selection, as the textarea gives it (UTF-16 offsets). */
export interface Selection {
  start: number;
  end: number;
}

/** Replace `[from, to)` with `insert`, then select `select` (offsets in the new text). */
export interface Edit {
  from: number;
  to: number;
  insert: string;
  select: Selection;
}

const MARKERS = { bold: '**', italic: '*' } as const;

/**
 * Bold or italic around the selection. Emphasis stays inside a line, so each selected line is
 * wrapped on its own, markers hugging the words (spaces at the edges stay outside). A selection
 * that the markers already surround is unwrapped. Without a selection the markers go in pairs
 * around the caret.
 */
function emphasis(text: string, sel: Selection, marker: string): Edit {
  const selected = text.slice(sel.start, sel.end);
  const m = marker.length;
  const before = text.slice(Math.max(0, sel.start - m), sel.start);
  const after = text.slice(sel.end, sel.end + m);
  // `**` around an italic's `*` is no italic: only a marker not part of a longer run counts.
  const runAround = text[sel.start - m - 1] === '*' || text[sel.end + m] === '*';
  if (selected !== '' && before === marker && after === marker && (marker === '**' || !runAround)) {
    return {
      from: sel.start - m,
      to: sel.end + m,
      insert: selected,
      select: { start: sel.start - m, end: sel.end - m },
    };
  }
  if (selected.trim() === '') {
    return {
      from: sel.start,
      to: sel.end,
      insert: marker + selected + marker,
      select: { start: sel.start + m, end: sel.start + m },
    };
  }
  const wrapped = selected
    .split('\n')
    .map((line) => {
      const core = line.trim();
      if (core === '') return line;
      const lead = line.slice(0, line.indexOf(core));
      return `${lead}${marker}${core}${marker}${line.slice(lead.length + core.length)}`;
    })
    .join('\n');
  if (!selected.includes('\n')) {
    const lead = selected.length - selected.trimStart().length;
    const start = sel.start + lead + m;
    return { from: sel.start, to: sel.end, insert: wrapped, select: { start, end: start + selected.trim().length } };
  }
  return {
    from: sel.start,
    to: sel.end,
    insert: wrapped,
    select: { start: sel.start, end: sel.start + wrapped.length },
  };
}

const PREFIXES = {
  bullets: /^- /,
  numbers: /^\d{1,9}[.)] /,
  quote: /^> ?/,
} as const;

/**
 * A list or quote over the lines the selection touches: each non-blank line gets `- `, `1. `,
 * `2. `… or `> `; when every one of them already has it, it is taken off instead. The edited
 * lines end up selected.
 */
function linePrefix(text: string, sel: Selection, action: 'bullets' | 'numbers' | 'quote'): Edit {
  const from = text.lastIndexOf('\n', sel.start - 1) + 1;
  const endBreak = text.indexOf('\n', sel.end > sel.start && text[sel.end - 1] === '\n' ? sel.end - 1 : sel.end);
  const to = endBreak === -1 ? text.length : endBreak;
  const lines = text.slice(from, to).split('\n');
  const filled = lines.filter((line) => line.trim() !== '');
  const pattern = PREFIXES[action];
  const remove = filled.length > 0 && filled.every((line) => pattern.test(line));
  let n = 0;
  const edited = lines.map((line) => {
    if (remove) return line.replace(pattern, '');
    if (line.trim() === '' && lines.length > 1) return line;
    // A line that already holds another list marker changes kind instead of getting two.
    const bare = action === 'quote' ? line : line.replace(PREFIXES.bullets, '').replace(PREFIXES.numbers, '');
    n += 1;
    return `${action === 'bullets' ? '- ' : action === 'numbers' ? `${n}. ` : '> '}${bare}`;
  });
  const insert = edited.join('\n');
  const single = lines.length === 1 && sel.start === sel.end;
  const select = single
    ? { start: from + insert.length, end: from + insert.length }
    : { start: from, end: from + insert.length };
  return { from, to, insert, select };
}

const URL_LIKE = /^(?:https?:\/\/|mailto:)\S+$/i;

/**
 * A link: `[selection](https://)` with the `https://` selected, ready for the address to be typed
 * or pasted over it; a selected address becomes the target and `linkText` (the placeholder text)
 * is selected instead.
 */
function link(text: string, sel: Selection, linkText: string): Edit {
  const selected = text.slice(sel.start, sel.end).trim();
  if (URL_LIKE.test(selected)) {
    const insert = `[${linkText}](${selected})`;
    return {
      from: sel.start,
      to: sel.end,
      insert,
      select: { start: sel.start + 1, end: sel.start + 1 + linkText.length },
    };
  }
  const label = selected.replace(/\s+/g, ' ') || linkText;
  const insert = `[${label}](https://)`;
  const urlStart = sel.start + label.length + 3;
  return { from: sel.start, to: sel.end, insert, select: { start: urlStart, end: urlStart + 'https://'.length } };
}

/** The edit an action makes to `text` with this selection. */
export function formatEdit(action: FormatAction, text: string, sel: Selection, linkText: string): Edit {
  switch (action) {
    case 'bold':
    case 'italic':
      return emphasis(text, sel, MARKERS[action]);
    case 'link':
      return link(text, sel, linkText);
    default:
      return linePrefix(text, sel, action);
  }
}

/** The text after an edit. */
export function applyEdit(text: string, edit: Edit): string {
  return text.slice(0, edit.from) + edit.insert + text.slice(edit.to);
}

/** The action of a keyboard shortcut (Ctrl or ⌘ with B, I or K), or null. */
export function shortcutAction(event: {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}): FormatAction | null {
  if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return null;
  switch (event.key.toLowerCase()) {
    case 'b':
      return 'bold';
    case 'i':
      return 'italic';
    case 'k':
      return 'link';
    default:
      return null;
  }
}
