import { beforeAll, describe, expect, it } from 'vitest';
import { commentNotification as comment } from '../../test/fixtures';
import { i18n, initI18n } from '../../lib/i18n';
import { collapseNotifications, entryTarget, unreadEntries } from './collapse';
import { entryText } from './notificationText';

beforeAll(async () => {
  await initI18n('en_US');
});

const joined = comment('j1', 'Dan', { type: 'user_joined_group', target: 'g', fromMessage: null, title: '' });

describe('collapseNotifications', () => {
  it('makes one entry of the comments on one message, in the order of their newest', () => {
    const list = [
      comment('n1', 'Bob'),
      joined,
      comment('n2', 'Alice'),
      comment('n3', 'Bob', { fromMessage: { id: 'm2', entityType: 'message' } }),
      comment('n4', 'Bob'),
    ];
    const entries = collapseNotifications(list);
    expect(entries.map((entry) => entry.all.map((n) => n.id))).toEqual([['n1', 'n2', 'n4'], ['j1'], ['n3']]);
    expect(entries[0]?.lead.id).toBe('n1');
    // Bob commented twice: named once.
    expect(entries[0]?.people).toEqual(['Bob', 'Alice']);
  });

  it('never collapses other kinds, even about the same group', () => {
    const other = { ...joined, id: 'j2' };
    expect(collapseNotifications([joined, other])).toHaveLength(2);
  });

  it('counts a collapsed entry once in the badge, and only while one of it is unread', () => {
    const entries = collapseNotifications([
      comment('n1', 'Bob', { read: true }),
      comment('n2', 'Alice'),
      comment('n3', 'Cid'),
      { ...joined, read: true },
    ]);
    expect(entries[0]?.unread).toBe(true);
    expect(unreadEntries(entries)).toBe(1);
    const read = collapseNotifications([comment('n1', 'Bob', { read: true }), comment('n2', 'Alice', { read: true })]);
    expect(unreadEntries(read)).toBe(0);
    expect(unreadEntries([])).toBe(0);
  });

  it('opens the oldest unread comment of an entry, else its newest', () => {
    const [entry] = collapseNotifications([
      comment('n1', 'Bob'),
      comment('n2', 'Alice'),
      comment('n3', 'Cid', { read: true }),
    ]);
    expect(entryTarget(entry!).id).toBe('n2');
    const [read] = collapseNotifications([comment('n1', 'Bob', { read: true }), comment('n2', 'Al', { read: true })]);
    expect(entryTarget(read!).id).toBe('n1');
  });
});

describe('entryText', () => {
  const text = (...list: Parameters<typeof comment>[]) =>
    entryText(i18n.t, i18n.language, collapseNotifications(list.map((args) => comment(...args)))[0]!);

  it('names one commenter as a single notification does', () => {
    expect(text(['n1', 'Bob'], ['n2', 'Bob'])).toBe('Bob commented on “Beach day” in Family');
  });

  it('names two commenters, then the newest and how many others', () => {
    expect(text(['n1', 'Bob'], ['n2', 'Alice'])).toBe('Bob and Alice commented on “Beach day” in Family');
    expect(text(['n1', 'Bob'], ['n2', 'Alice'], ['n3', 'Cid'], ['n4', 'Dee'])).toBe(
      'Bob and 3 others commented on “Beach day” in Family',
    );
    expect(text(['n1', 'Bob'], ['n2', 'Alice'], ['n3', 'Cid'])).toBe(
      'Bob and 2 others commented on “Beach day” in Family',
    );
  });

  it('has untitled forms, and says "Someone" for a deleted account', () => {
    expect(text(['n1', 'Bob', { title: '' }], ['n2', null, { title: '' }])).toBe('Bob and Someone commented in Family');
    expect(text(['n1', null, { title: '' }], ['n2', 'Al', { title: '' }], ['n3', 'Cy', { title: '' }])).toBe(
      'Someone and 2 others commented in Family',
    );
  });
});
