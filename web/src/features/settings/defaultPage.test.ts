import { describe, expect, it } from 'vitest';
import type { Me } from '@kith/common';
import { ALL_GROUPS_CHOICE, defaultChoiceChanges, defaultChoiceOf, homePathOf } from './settings';

const groups: Me['groups'] = [
  { id: 'g1', entityType: 'group', name: 'Family' },
  { id: 'g2', entityType: 'group', name: 'Friends' },
];

describe('the page / opens (data.default_page)', () => {
  it('is the all-groups feed when chosen and the user has a group', () => {
    expect(homePathOf({ groups, data: { default_page: 'feed', default_group: 'g2' } })).toBe('/feed');
  });

  it('is the default group otherwise, else the first group', () => {
    expect(homePathOf({ groups, data: { default_page: 'default_group', default_group: 'g2' } })).toBe('/groups/g2');
    expect(homePathOf({ groups, data: { default_group: 'g2' } })).toBe('/groups/g2');
    expect(homePathOf({ groups, data: {} })).toBe('/groups/g1');
    expect(homePathOf({ groups, data: { default_group: 'gone' } })).toBe('/groups/g1');
  });

  it('is /create-group without a group, whatever was chosen', () => {
    expect(homePathOf({ groups: [], data: { default_page: 'feed' } })).toBe('/create-group');
    expect(homePathOf({ groups: [], data: {} })).toBe('/create-group');
  });
});

describe('the default page choice of the settings', () => {
  it('starts on the all-groups feed or the default group', () => {
    expect(defaultChoiceOf({ groups, data: { default_page: 'feed', default_group: 'g2' } })).toBe(ALL_GROUPS_CHOICE);
    expect(defaultChoiceOf({ groups, data: { default_group: 'g2' } })).toBe('g2');
  });

  it('choosing the feed leaves default_group as it is, for the 0.5.6 client', () => {
    expect(defaultChoiceChanges(ALL_GROUPS_CHOICE)).toEqual({ data: { default_page: 'feed' } });
    expect(defaultChoiceChanges('g2')).toEqual({ data: { default_page: 'default_group', default_group: 'g2' } });
  });
});
