import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createQueryClient } from '../../api/queries';
import { initI18n } from '../../lib/i18n';
import { Writer } from './Writer';

beforeAll(async () => {
  await initI18n('en_US');
});

afterEach(cleanup);

function setup(props: { parentId?: string } = {}) {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <Writer groupId="g1" onDone={() => undefined} {...props} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  const field = screen.getByRole<HTMLTextAreaElement>('combobox', { name: props.parentId ? 'Reply' : 'Message' });
  return { field, toolbar: screen.getByRole('toolbar', { name: 'Formatting' }) };
}

/** Types a text and selects `[from, to)` of it. */
function typeAndSelect(field: HTMLTextAreaElement, text: string, from: number, to: number) {
  fireEvent.input(field, { target: { value: text } });
  field.setSelectionRange(from, to);
}

describe('Writer formatting toolbar', () => {
  it('names each button and its shortcut, and edits the text it controls', () => {
    const { field, toolbar } = setup();
    const buttons = within(toolbar).getAllByRole('button');
    expect(buttons.map((b) => b.getAttribute('aria-label'))).toEqual([
      'Bold',
      'Italic',
      'Bulleted list',
      'Numbered list',
      'Quote',
      'Link',
    ]);
    expect(screen.getByRole('button', { name: 'Bold' }).getAttribute('title')).toMatch(/^Bold \((Ctrl\+|⌘)B\)$/);
    expect(screen.getByRole('button', { name: 'Link' }).getAttribute('aria-keyshortcuts')).toMatch(
      /^(Control|Meta)\+K$/,
    );
    expect(toolbar.getAttribute('aria-controls')).toBe(field.id);
  });

  it('wraps the selection in bold, and the lines in a list', () => {
    const { field } = setup();
    typeAndSelect(field, 'hello world', 6, 11);
    fireEvent.click(screen.getByRole('button', { name: 'Bold' }));
    expect(field.value).toBe('hello **world**');
    expect([field.selectionStart, field.selectionEnd]).toEqual([8, 13]);
    expect(document.activeElement).toBe(field);

    typeAndSelect(field, 'milk\neggs', 0, 9);
    fireEvent.click(screen.getByRole('button', { name: 'Bulleted list' }));
    expect(field.value).toBe('- milk\n- eggs');
  });

  it('runs Ctrl+B, Ctrl+I and Ctrl+K in the text', () => {
    const { field } = setup();
    typeAndSelect(field, 'one two', 0, 3);
    fireEvent.keyDown(field, { key: 'b', ctrlKey: true });
    expect(field.value).toBe('**one** two');
    field.setSelectionRange(8, 11);
    fireEvent.keyDown(field, { key: 'i', metaKey: true });
    expect(field.value).toBe('**one** *two*');
    field.setSelectionRange(0, 0);
    fireEvent.keyDown(field, { key: 'k', ctrlKey: true });
    expect(field.value).toBe('[link text](https://)**one** *two*');
    expect(field.value.slice(field.selectionStart, field.selectionEnd)).toBe('https://');
  });

  it('moves between buttons with the arrow keys, one tab stop for the whole bar', () => {
    const { toolbar } = setup();
    const buttons = within(toolbar).getAllByRole('button');
    expect(buttons.map((b) => b.tabIndex)).toEqual([0, -1, -1, -1, -1, -1]);
    buttons[0]?.focus();
    fireEvent.keyDown(toolbar, { key: 'ArrowLeft' });
    expect(document.activeElement).toBe(buttons[5]);
    fireEvent.keyDown(toolbar, { key: 'Home' });
    expect(document.activeElement).toBe(buttons[0]);
    fireEvent.keyDown(toolbar, { key: 'ArrowRight' });
    expect(document.activeElement).toBe(buttons[1]);
    expect(buttons.map((b) => b.tabIndex)).toEqual([-1, 0, -1, -1, -1, -1]);
  });

  it('is in the comment composer too', () => {
    const { field } = setup({ parentId: 'm1' });
    typeAndSelect(field, 'quoted', 0, 6);
    fireEvent.click(screen.getByRole('button', { name: 'Quote' }));
    expect(field.value).toBe('> quoted');
  });
});
