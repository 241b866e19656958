import { describe, expect, it } from 'vitest';
import {
  canLeaveGroup,
  canMakeDefaultGroup,
  canPostInGroup,
  canRenameGroup,
  canResetInviteKey,
  canSeeGroup,
} from './policy.js';

const ana = { id: 'a1111111-1111-4111-8111-111111111111' };
const ben = { id: 'b2222222-2222-4222-8222-222222222222' };
const family = { id: 'f3333333-3333-4333-8333-333333333333' };
const elsewhere = { id: 'e4444444-4444-4444-8444-444444444444' };

const abilities = {
  canSeeGroup,
  canPostInGroup,
  canRenameGroup,
  canLeaveGroup,
  canResetInviteKey,
  canMakeDefaultGroup,
};

describe('group policy (docs/api §1.8, §5)', () => {
  for (const [name, can] of Object.entries(abilities)) {
    describe(name, () => {
      it('allows a member of the group', () => {
        expect(can(ana, family, { group_id: family.id, user_id: ana.id })).toBe(true);
      });

      it('refuses someone who is not in the member list', () => {
        expect(can(ana, family, undefined)).toBe(false);
      });

      it('refuses on a membership of another group or of another user', () => {
        expect(can(ana, family, { group_id: elsewhere.id, user_id: ana.id })).toBe(false);
        expect(can(ana, family, { group_id: family.id, user_id: ben.id })).toBe(false);
      });
    });
  }
});
