import { describe, expect, it } from 'vitest';
import { canDeleteNotification, canReadNotification, canUpdateNotification } from './policy.js';

const ana = { id: 'a1111111-1111-4111-8111-111111111111' };
const ben = { id: 'b2222222-2222-4222-8222-222222222222' };

describe('notification policy (docs/api §1.8, §8)', () => {
  for (const [name, can] of Object.entries({ canReadNotification, canUpdateNotification, canDeleteNotification })) {
    it(`${name}: the owner only`, () => {
      expect(can(ana, { user_id: ana.id })).toBe(true);
      expect(can(ben, { user_id: ana.id })).toBe(false);
    });
  }
});
