import { describe, expect, it } from 'vitest';
import { canReactTo, canRemoveReaction, shouldNotifyAuthor } from './policy.js';

describe('reactions policy (issue 20)', () => {
  it('allows reacting to a message, not to a placeholder', () => {
    expect(canReactTo({ is_deleted: 0 })).toBe(true);
    expect(canReactTo({ is_deleted: 1 })).toBe(false);
  });

  it('lets only the reactor take a reaction back', () => {
    expect(canRemoveReaction({ id: 'ana' }, { user_id: 'ana' })).toBe(true);
    expect(canRemoveReaction({ id: 'ben' }, { user_id: 'ana' })).toBe(false);
  });

  it('notifies the author once per reactor, never for their own reaction or without an author', () => {
    expect(shouldNotifyAuthor('ben', { author_id: 'ana' }, false)).toBe(true);
    expect(shouldNotifyAuthor('ben', { author_id: 'ana' }, true)).toBe(false);
    expect(shouldNotifyAuthor('ana', { author_id: 'ana' }, false)).toBe(false);
    expect(shouldNotifyAuthor('ben', { author_id: null }, false)).toBe(false);
  });
});
