import { describe, expect, it } from 'vitest';
import { isMessageNew, matchingUnread, notificationMatches } from './newness.ts';
import type { NotificationLike } from './newness.ts';

const n = (over: Partial<NotificationLike> & { id: string }): NotificationLike => ({
  type: 'new_message',
  read: false,
  target: null,
  fromMessage: null,
  ...over,
});

describe('notificationMatches', () => {
  it('matches the target id or its own id', () => {
    const note = n({ id: 'n1', target: 'm1' });
    expect(notificationMatches(note, 'm1')).toBe(true);
    expect(notificationMatches(note, 'n1')).toBe(true);
    expect(notificationMatches(note, 'm2')).toBe(false);
  });

  it('does not match anything through a null target', () => {
    expect(notificationMatches(n({ id: 'n1', target: null }), 'null')).toBe(false);
  });
});

describe('isMessageNew', () => {
  it('is new when an unread notification targets it', () => {
    expect(isMessageNew([n({ id: 'n1', target: 'm1' })], 'm1')).toBe(true);
  });

  it('is not new when the matching notification is read', () => {
    expect(isMessageNew([n({ id: 'n1', target: 'm1', read: true })], 'm1')).toBe(false);
  });

  it('is new for an unread new_comment from the message', () => {
    const comment = n({ id: 'n2', type: 'new_comment', target: 'c9', fromMessage: { id: 'm1' } });
    expect(isMessageNew([comment], 'm1')).toBe(true);
    expect(isMessageNew([{ ...comment, read: true }], 'm1')).toBe(false);
  });

  it('only counts fromMessage for new_comment notifications', () => {
    const other = n({ id: 'n3', type: 'new_message', target: 'm5', fromMessage: { id: 'm1' } });
    expect(isMessageNew([other], 'm1')).toBe(false);
  });

  it('is not new with an empty list or unrelated notifications', () => {
    expect(isMessageNew([], 'm1')).toBe(false);
    expect(isMessageNew([n({ id: 'n1', target: 'm2' })], 'm1')).toBe(false);
  });
});

describe('matchingUnread', () => {
  it('returns the unread ones matching any id, in list order', () => {
    const list = [
      n({ id: 'n1', target: 'm1' }),
      n({ id: 'n2', target: 'c1', type: 'new_comment', fromMessage: { id: 'm1' } }),
      n({ id: 'n3', target: 'm1', read: true }),
      n({ id: 'n4', target: 'm2' }),
      n({ id: 'n5' }),
    ];
    expect(matchingUnread(list, ['m1', 'c1', 'n5']).map((x) => x.id)).toEqual(['n1', 'n2', 'n5']);
    expect(matchingUnread(list, [])).toEqual([]);
  });
});
