import { cleanup, render } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import type { Mention, UserRef } from '@kith/common';
import { RichText } from '../messages/RichText';
import {
  initialPicks,
  mentionIdsToSend,
  mentionQueryAt,
  splitMentions,
  suggestMembers,
  withCurrentNames,
} from './mentions';

afterEach(cleanup);

const user = (id: string, name: string): UserRef => ({ id, entityType: 'user', name, avatar: null });
const MEMBERS = [
  user('me', 'Ben'),
  user('ana', 'Ana Silva'),
  user('cleo', 'Cléo Durand'),
  user('anton', 'Anton'),
  user('dan', 'Dan Ananas'),
];
const ANA: Mention = { id: 'ana', name: 'Ana Silva', written: 'Ana Silva' };

describe('mentionQueryAt (the @ being typed)', () => {
  it('finds an @ at the start of a word, with what follows it up to the caret', () => {
    expect(mentionQueryAt('@an', 3)).toEqual({ start: 0, query: 'an' });
    expect(mentionQueryAt('Hi @Ana S', 9)).toEqual({ start: 3, query: 'Ana S' });
    expect(mentionQueryAt('Hi (@', 5)).toEqual({ start: 4, query: '' });
  });

  it('ignores an @ inside a word or an address, after a line break, or far behind', () => {
    expect(mentionQueryAt('ana@example', 11)).toBeNull();
    expect(mentionQueryAt('@an\nnext', 8)).toBeNull();
    expect(mentionQueryAt('@ an', 4)).toBeNull();
    expect(mentionQueryAt('@Ana went to the market', 23)).toBeNull();
    expect(mentionQueryAt('no at here', 10)).toBeNull();
  });
});

describe('suggestMembers', () => {
  it('matches any word of a name, ignoring case and accents, names starting with it first, never oneself', () => {
    expect(suggestMembers(MEMBERS, 'an', 'me').map((u) => u.id)).toEqual(['ana', 'anton', 'dan']);
    expect(suggestMembers(MEMBERS, 'CLE', 'me').map((u) => u.id)).toEqual(['cleo']);
    expect(suggestMembers(MEMBERS, 'durand', 'me').map((u) => u.id)).toEqual(['cleo']);
    expect(suggestMembers(MEMBERS, 'be', 'me')).toEqual([]);
    expect(suggestMembers(MEMBERS, '', 'me')).toHaveLength(4);
  });

  it('shows at most 8', () => {
    const many = Array.from({ length: 20 }, (_, i) => user(`u${i}`, `Ana ${i}`));
    expect(suggestMembers(many, 'ana', 'me')).toHaveLength(8);
  });
});

describe('splitMentions and withCurrentNames', () => {
  it('shows a mention under the current name, the rest as written', () => {
    const renamed: Mention = { id: 'dan', name: 'Daniel', written: 'Dan' };
    expect(withCurrentNames('Thanks @Dan! and @Danny', [renamed])).toBe('Thanks @Daniel! and @Danny');
    expect(splitMentions('x@Dan', [renamed])).toEqual([{ type: 'text', text: 'x@Dan' }]);
  });

  it('prefers the longer of two mentions starting at the same place', () => {
    const ana: Mention = { id: 'a', name: 'Ana', written: 'Ana' };
    expect(splitMentions('@Ana Silva!', [ana, ANA])).toEqual([
      { type: 'mention', mention: ANA },
      { type: 'text', text: '!' },
    ]);
  });
});

describe('mentionIdsToSend', () => {
  it('sends the people picked whose name is still in the text, under either name of an edit', () => {
    const picks = [
      ...initialPicks([{ id: 'dan', name: 'Daniel', written: 'Dan' }]),
      { id: 'ana', names: ['Ana Silva'] },
    ];
    expect(mentionIdsToSend('@Dan and @Ana Silva', picks)).toEqual(['dan', 'ana']);
    expect(mentionIdsToSend('@Daniel only', picks)).toEqual(['dan']);
    expect(mentionIdsToSend('nobody', picks)).toEqual([]);
  });
});

describe('RichText with mentions', () => {
  it('renders @current name as a highlighted text span, the reader’s own marked, never as HTML', () => {
    const evil: Mention = { id: 'x', name: '<img src=x onerror=alert(1)>', written: 'Eve' };
    const { container } = render(
      <MemoryRouter>
        <RichText text={'**@Ana Silva** and @Eve, see #cake'} groupId="g" mentions={[ANA, evil]} meId="ana" />
      </MemoryRouter>,
    );
    const spans = [...container.querySelectorAll('[data-mention]')];
    expect(spans.map((s) => s.textContent)).toEqual(['@Ana Silva', '@<img src=x onerror=alert(1)>']);
    expect(spans[0]?.closest('strong')).not.toBeNull();
    expect(spans[0]?.className).not.toBe(spans[1]?.className);
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('a')?.textContent).toBe('#cake');
  });
});
