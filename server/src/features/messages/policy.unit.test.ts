import { describe, expect, it } from 'vitest';
import {
  canDeleteMessage,
  canEditMessage,
  canPinMessage,
  canPublishMessage,
  canReadMessage,
  canReplyTo,
  canShareMessage,
  messageAbilities,
} from './policy.js';

const ana = { id: 'a1111111-1111-4111-8111-111111111111' };
const ben = { id: 'b2222222-2222-4222-8222-222222222222' };
const family = 'f3333333-3333-4333-8333-333333333333';
const elsewhere = 'e4444444-4444-4444-8444-444444444444';

/** A message row with what the rules read; a post by Ana in Family unless overridden. */
const message = (over: Partial<{ author_id: string | null; is_deleted: number; is_in_front: number }> = {}) => ({
  group_id: family,
  author_id: ana.id,
  is_deleted: 0,
  is_in_front: 1,
  ...over,
});

describe('message policy (docs/api §1.8, §6)', () => {
  it('lets members of the message’s group read it, placeholders included, and nobody else', () => {
    expect(canReadMessage(ben, message(), { group_id: family, user_id: ben.id })).toBe(true);
    expect(
      canReadMessage(ben, message({ is_deleted: 1, author_id: null }), { group_id: family, user_id: ben.id }),
    ).toBe(true);
    expect(canReadMessage(ben, message(), undefined)).toBe(false);
    // A membership of another group, or of another user, does not count.
    expect(canReadMessage(ben, message(), { group_id: elsewhere, user_id: ben.id })).toBe(false);
    expect(canReadMessage(ben, message(), { group_id: family, user_id: ana.id })).toBe(false);
  });

  it('lets only the author edit and delete, never on a placeholder', () => {
    expect(canEditMessage(ana, message())).toBe(true);
    expect(canDeleteMessage(ana, message())).toBe(true);
    expect(canEditMessage(ben, message())).toBe(false);
    expect(canDeleteMessage(ben, message())).toBe(false);
    // A placeholder has no author; even a stray author id on a deleted row gives no right.
    expect(canEditMessage(ana, message({ is_deleted: 1, author_id: null }))).toBe(false);
    expect(canDeleteMessage(ana, message({ is_deleted: 1 }))).toBe(false);
  });

  it('lets the author publish a reply that is not on the group page yet, and nothing else', () => {
    expect(canPublishMessage(ana, message({ is_in_front: 0 }))).toBe(true);
    expect(canPublishMessage(ana, message({ is_in_front: 1 }))).toBe(false);
    expect(canPublishMessage(ben, message({ is_in_front: 0 }))).toBe(false);
    expect(canPublishMessage(ana, message({ is_in_front: 0, is_deleted: 1 }))).toBe(false);
  });

  it('takes replies only under a message of the same group that is not a placeholder', () => {
    expect(canReplyTo(message(), family)).toBe(true);
    expect(canReplyTo(message(), elsewhere)).toBe(false);
    expect(canReplyTo(message({ is_deleted: 1, author_id: null }), family)).toBe(false);
  });

  it('shares any message but a placeholder', () => {
    expect(canShareMessage(message())).toBe(true);
    expect(canShareMessage(message({ is_deleted: 1 }))).toBe(false);
  });

  it('lets any member pin a message of the group page, not a reply off it nor a placeholder', () => {
    expect(canPinMessage(message())).toBe(true);
    // A published reply is on the group page too.
    expect(canPinMessage(message({ is_in_front: 1 }))).toBe(true);
    expect(canPinMessage(message({ is_in_front: 0 }))).toBe(false);
    expect(canPinMessage(message({ is_deleted: 1, is_in_front: 0, author_id: null }))).toBe(false);
    expect(canPinMessage(message({ is_deleted: 1, is_in_front: 1 }))).toBe(false);
  });

  it('gives the answer’s can for the caller, and nothing to a public-link visitor', () => {
    expect(messageAbilities(ana, message({ is_in_front: 0 }))).toEqual({
      edit: true,
      delete: true,
      publish: true,
      pin: false,
    });
    expect(messageAbilities(ana, message())).toEqual({ edit: true, delete: true, publish: false, pin: true });
    // Another member may pin the post, and nothing else.
    expect(messageAbilities(ben, message())).toEqual({ edit: false, delete: false, publish: false, pin: true });
    expect(messageAbilities(ben, message({ is_in_front: 0 }))).toEqual({
      edit: false,
      delete: false,
      publish: false,
      pin: false,
    });
    expect(messageAbilities(null, message())).toEqual({ edit: false, delete: false, publish: false, pin: false });
  });
});
