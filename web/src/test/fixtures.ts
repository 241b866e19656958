// API objects for the web client's component tests, typed by the server's schemas (@kith/common):
// a fixture that drifts from what the server answers does not compile.
import type { FeedItem, Me, Message, Notification } from '@kith/common';

/** Noon, 1 January 2026, in seconds. */
export const NOW_SECONDS = 1767268800;

/** The signed-in user, Ana. */
export const me: Me = {
  id: 'me',
  entityType: 'user',
  name: 'Ana',
  login: 'ana@example.org',
  avatar: null,
  groups: [],
  data: {},
  createdAt: NOW_SECONDS,
  lastActivityDate: NOW_SECONDS,
};

/** A reply by Ben in the group Family, which nobody may change; `overrides` set the rest. */
export function message(overrides: Partial<Message> = {}): Message {
  return {
    id: 'm1',
    entityType: 'message',
    type: 'standard',
    createdAt: NOW_SECONDS,
    lastActivityDate: NOW_SECONDS,
    data: { text: 'Beach day' },
    author: { id: 'ben', entityType: 'user', name: 'Ben', avatar: null },
    group: { id: 'g', entityType: 'group', name: 'Family' },
    parent: { id: 'root', entityType: 'message' },
    lineage: ['root'],
    children: [],
    files: [],
    preview: null,
    isInFront: false,
    isPublic: false,
    isDeleted: false,
    pinnedInGroup: false,
    reactions: [],
    mentions: [],
    can: { edit: false, delete: false, publish: false, pin: false },
    ...overrides,
  };
}

/** A feed card (docs/api §11.1): `message()` as a post on the group page shows; `overrides` set the rest. */
export function feedItem(overrides: Partial<FeedItem> = {}): FeedItem {
  const {
    parent: _parent,
    lineage: _lineage,
    children: _children,
    files: _files,
    isPublic: _isPublic,
    can: _can,
    group: _group,
    ...card
  } = message({ isInFront: true, parent: null, lineage: [] });
  const group = { id: 'g', entityType: 'group' as const, name: 'Family' };
  return { ...card, group, children: 0, truncated: false, unread: false, ...overrides };
}

/** An unread comment by `name` (id `${name}`) on Ana's message m1 “Beach day” in Family. */
export function commentNotification(
  id: string,
  name: string | null,
  overrides: Partial<Notification> = {},
): Notification {
  return {
    id,
    entityType: 'notification',
    type: 'new_comment',
    createdAt: NOW_SECONDS,
    read: false,
    target: `c-${id}`,
    data: {},
    fromUser: name === null ? null : { id: name.toLowerCase(), entityType: 'user', name, avatar: null },
    fromGroup: { id: 'g', entityType: 'group', name: 'Family' },
    fromMessage: { id: 'm1', entityType: 'message' },
    title: 'Beach day',
    parentAuthorName: 'Ana',
    miniature: null,
    ...overrides,
  };
}
