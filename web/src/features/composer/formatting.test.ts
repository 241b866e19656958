import { describe, expect, it } from 'vitest';
import { applyEdit, formatEdit, shortcutAction, type FormatAction } from './formatting';

/**
 * Runs an action on a text whose selection is marked with `[` and `]` (or one `|` for a caret) and
 * gives the result with its new selection marked the same way.
 */
function run(action: FormatAction, marked: string): string {
  const caret = marked.indexOf('|');
  const start = caret !== -1 ? caret : marked.indexOf('[');
  const end = caret !== -1 ? caret : marked.indexOf(']') - 1;
  const text = marked.replace(caret !== -1 ? '|' : /[[\]]/g, '');
  const edit = formatEdit(action, text, { start, end }, 'link text');
  const out = applyEdit(text, edit);
  const { start: s, end: e } = edit.select;
  return s === e ? `${out.slice(0, s)}|${out.slice(s)}` : `${out.slice(0, s)}[${out.slice(s, e)}]${out.slice(e)}`;
}

describe('bold and italic', () => {
  it('wraps the selected words, markers hugging them', () => {
    expect(run('bold', 'say [hello ]there')).toBe('say **[hello]** there');
    expect(run('italic', 'say [hello] there')).toBe('say *[hello]* there');
  });

  it('unwraps a selection the markers surround', () => {
    expect(run('bold', 'say **[hello]** there')).toBe('say [hello] there');
    expect(run('italic', 'say *[hello]* there')).toBe('say [hello] there');
  });

  it('makes bold italic rather than unwrap the bold', () => {
    expect(run('italic', '**[hello]**')).toBe('***[hello]***');
  });

  it('wraps each line of a selection over several', () => {
    expect(run('bold', '[one\n\ntwo]')).toBe('[**one**\n\n**two**]');
  });

  it('puts a pair of markers around the caret', () => {
    expect(run('bold', 'a |b')).toBe('a **|**b');
  });
});

describe('lists and quotes', () => {
  it('prefixes every line the selection touches, and takes the prefix off again', () => {
    expect(run('bullets', 'mi[lk\neg]gs')).toBe('[- milk\n- eggs]');
    expect(run('bullets', '[- milk\n- eggs]')).toBe('[milk\neggs]');
    expect(run('numbers', 'a\n[b\n\nc]\nd')).toBe('a\n[1. b\n\n2. c]\nd');
    expect(run('quote', 'x|y')).toBe('> xy|');
    expect(run('quote', '[> x\n> y]')).toBe('[x\ny]');
  });

  it('turns a bulleted line into a numbered one', () => {
    expect(run('numbers', '[- a\n- b]')).toBe('[1. a\n2. b]');
  });

  it('starts an item on an empty line', () => {
    expect(run('bullets', 'a\n|')).toBe('a\n- |');
  });

  it('leaves the line after a selection that ends with its line break alone', () => {
    expect(run('quote', '[a\n]b')).toBe('[> a]\nb');
  });
});

describe('links', () => {
  it('makes the selection the text and selects the address to type', () => {
    expect(run('link', 'see [the notes] now')).toBe('see [the notes]([https://]) now');
  });

  it('makes a selected address the target and selects the text to type', () => {
    expect(run('link', '[https://example.org/a]')).toBe('[[link text]](https://example.org/a)');
  });

  it('inserts a placeholder link at the caret', () => {
    expect(run('link', 'a |')).toBe('a [link text]([https://])');
  });
});

describe('shortcutAction', () => {
  const key = (
    k: string,
    more: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {},
  ) => shortcutAction({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...more });

  it('maps Ctrl or ⌘ with B, I and K', () => {
    expect(key('b', { ctrlKey: true })).toBe('bold');
    expect(key('I', { metaKey: true })).toBe('italic');
    expect(key('k', { ctrlKey: true })).toBe('link');
  });

  it('ignores other keys and combinations', () => {
    expect(key('b')).toBeNull();
    expect(key('b', { ctrlKey: true, shiftKey: true })).toBeNull();
    expect(key('b', { ctrlKey: true, altKey: true })).toBeNull();
    expect(key('Enter', { ctrlKey: true })).toBeNull();
  });
});
