import { describe, expect, it } from 'vitest';
import { hmac } from '../../lib/secrets.js';
import { linkTag } from './public-grants.js';

// linkTag() keeps the tags of recent tokens per configuration: it may not mix secrets.
describe('linkTag', () => {
  it('is the digest of its own secret, whichever configuration asked before', () => {
    const a = { config: { secretKey: 'a'.repeat(40) } } as Parameters<typeof linkTag>[0];
    const b = { config: { secretKey: 'b'.repeat(40) } } as Parameters<typeof linkTag>[0];
    for (let i = 0; i < 1500; i += 1) {
      const token = `token-${i}`;
      for (const ctx of [a, b, a]) {
        expect(linkTag(ctx, token)).toBe(hmac(ctx.config.secretKey, `public-link|${token}`).slice(0, 16));
      }
    }
    expect(linkTag(a, 'same')).not.toBe(linkTag(b, 'same'));
  });
});
