import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmac } from './secrets.js';

// hmac() keeps a key per secret: it may not mix secrets.
describe('hmac', () => {
  it('signs as HMAC-SHA-256 of the secret, for each of many secrets and again after its keys were dropped', () => {
    const secrets = Array.from({ length: 40 }, (_, i) => `secret-${i}-é-${'x'.repeat(i)}`);
    for (const round of [1, 2]) {
      for (const secret of secrets) {
        const value = `value|${round}|${secret.length}`;
        expect(hmac(secret, value)).toBe(createHmac('sha256', secret).update(value).digest('base64url'));
      }
    }
  });
});
