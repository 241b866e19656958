import { describe, expect, it } from 'vitest';
import { me } from '../../test/fixtures';
import { checkProfile, defaultGroupOf, neighbourTab, profileFormOf, SETTINGS_TABS, tabOf } from './settings';

describe('tabOf', () => {
  it('answers the tab a ?tab= value names', () => {
    for (const tab of SETTINGS_TABS) expect(tabOf(tab)).toBe(tab);
  });

  it('opens the profile for a missing, empty or unknown value', () => {
    expect(tabOf(null)).toBe('profile');
    expect(tabOf('')).toBe('profile');
    expect(tabOf('Language')).toBe('profile');
    expect(tabOf('toString')).toBe('profile');
  });
});

describe('neighbourTab', () => {
  it('moves to the next and previous tab', () => {
    expect(neighbourTab('profile', 1)).toBe('notifications');
    expect(neighbourTab('language', -1)).toBe('notifications');
  });

  it('wraps around at both ends', () => {
    expect(neighbourTab('data', 1)).toBe('profile');
    expect(neighbourTab('profile', -1)).toBe('data');
  });
});

describe('checkProfile', () => {
  const form = { name: 'Ana', email: 'ana@example.org', password: '', confirm: '' };

  it('sends the trimmed name and the lowercased e-mail, without a password when none is typed', () => {
    expect(checkProfile({ ...form, name: '  Ana Lima ', email: ' Ana@Example.ORG ' })).toEqual({
      changes: { name: 'Ana Lima', login: 'ana@example.org' },
    });
  });

  it('refuses an empty, blank or too long name, and one with < or >', () => {
    for (const name of ['', '   ', 'x'.repeat(129), '<b>Ana</b>']) {
      expect(checkProfile({ ...form, name })).toEqual({ problem: { field: 'name', key: 'errors.invalid_name' } });
    }
    expect(checkProfile({ ...form, name: 'x'.repeat(128) })).toHaveProperty('changes');
  });

  it('refuses an e-mail address that is not one', () => {
    for (const email of ['', 'ana', 'ana@example', 'a@b@example.org']) {
      expect(checkProfile({ ...form, email })).toEqual({ problem: { field: 'email', key: 'errors.invalid_email' } });
    }
  });

  it('holds a new password to 8–128 characters', () => {
    for (const password of ['short', 'x'.repeat(7), 'x'.repeat(129)]) {
      expect(checkProfile({ ...form, password, confirm: password })).toEqual({
        problem: { field: 'password', key: 'errors.invalid_password' },
      });
    }
    for (const password of ['x'.repeat(8), 'x'.repeat(128)]) {
      expect(checkProfile({ ...form, password, confirm: password })).toEqual({
        changes: { name: 'Ana', login: 'ana@example.org', password },
      });
    }
  });

  it('answers passwords_dont_match when the confirmation differs, or stands alone', () => {
    expect(checkProfile({ ...form, password: 'a good password', confirm: 'a good passwort' })).toEqual({
      problem: { field: 'confirm', key: 'errors.passwords_dont_match' },
    });
    expect(checkProfile({ ...form, password: 'a good password', confirm: '' })).toEqual({
      problem: { field: 'confirm', key: 'errors.passwords_dont_match' },
    });
    // A confirmation typed without the password: the password itself is what is missing.
    expect(checkProfile({ ...form, confirm: 'a good password' })).toEqual({
      problem: { field: 'password', key: 'errors.invalid_password' },
    });
  });

  it('checks the fields in the order of the form', () => {
    expect(checkProfile({ name: '', email: 'nope', password: 'short', confirm: 'x' })).toEqual({
      problem: { field: 'name', key: 'errors.invalid_name' },
    });
    expect(checkProfile({ ...form, email: 'nope', password: 'short', confirm: 'x' })).toEqual({
      problem: { field: 'email', key: 'errors.invalid_email' },
    });
  });
});

describe('profileFormOf', () => {
  it('starts from the saved name and e-mail with empty password fields', () => {
    expect(profileFormOf(me)).toEqual({ name: 'Ana', email: 'ana@example.org', password: '', confirm: '' });
  });
});

describe('defaultGroupOf', () => {
  const groups = [
    { id: 'g1', entityType: 'group' as const, name: 'Family' },
    { id: 'g2', entityType: 'group' as const, name: 'Friends' },
  ];

  it('answers the chosen default group', () => {
    expect(defaultGroupOf({ groups, data: { default_group: 'g2' } })).toBe('g2');
  });

  it('falls back to the first group when none is chosen or the chosen one was left', () => {
    expect(defaultGroupOf({ groups, data: {} })).toBe('g1');
    expect(defaultGroupOf({ groups, data: { default_group: 'gone' } })).toBe('g1');
  });

  it('answers an empty id without groups', () => {
    expect(defaultGroupOf({ groups: [], data: {} })).toBe('');
  });
});
