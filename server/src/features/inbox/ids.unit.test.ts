import { describe, expect, it } from 'vitest';
import { newOrderedId, parseId } from '../../lib/ids.js';
import { recipientId } from './ids.js';

describe('recipientId', () => {
  it('gives the ids clients were already handed (computed by the first implementation)', () => {
    // Ids a client holds must keep naming the same notification when the code changes.
    expect(recipientId('0193a5b2-7c41-4d2e-9f10-3b4c5d6e7f80', '5a1c3e2b-0f4d-4c6a-8b9e-1d2f3a4b5c6d')).toBe(
      '0193a5b2-7c41-4410-96d5-d400e59d1f30',
    );
    expect(recipientId('01234567-89ab-4cde-8f01-23456789abcd', 'ffffffff-ffff-4fff-bfff-ffffffffffff')).toBe(
      '01234567-89ab-4ab2-89a1-f261e2d36bf7',
    );
  });

  it('is its own inverse, keeps the time prefix and the UUID v4 form, and differs per user', () => {
    const users = ['5a1c3e2b-0f4d-4c6a-8b9e-1d2f3a4b5c6d', 'b3d1e0f2-9a8c-4b7d-a6e5-f4c3b2a19087'];
    for (let i = 0; i < 200; i++) {
      const event = newOrderedId(1_700_000_000_000 + i);
      const seen = users.map((user) => recipientId(event, user));
      for (const [j, id] of seen.entries()) {
        expect(parseId(id)).toBe(id);
        expect(id[14]).toBe('4');
        expect(id.slice(0, 13)).toBe(event.slice(0, 13));
        expect(recipientId(id, users[j] as string)).toBe(event);
      }
      expect(seen[0]).not.toBe(seen[1]);
    }
  });
});
