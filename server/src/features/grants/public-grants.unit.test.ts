import { describe, expect, it } from 'vitest';
import { hmac } from '../../lib/secrets.js';
import { grantCookieValue, linkTag, parsePublicCookie, PUBLIC_GRANT_MS } from './public-grants.js';

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

// grantCookieValue() gives the value it gave for the same visit within a minute, unsigned again.
describe('grantCookieValue', () => {
  const ctx = { config: { secretKey: 'c'.repeat(40) } } as Parameters<typeof grantCookieValue>[0];
  const other = { config: { secretKey: 'd'.repeat(40) } } as Parameters<typeof grantCookieValue>[0];
  const message = '6a88e162-1664-4c8b-a0c6-ae6ba079a33b';
  const second = '7b99f273-2775-4d9c-b1d7-bf7cb18ab44c';
  const start = 1_800_000_000_000;

  it('gives the same value within a minute, a fresh one after, each signed and dated when first given', () => {
    const first = grantCookieValue(ctx, undefined, message, 'token-aaaaaaaaaaa', start);
    expect(parsePublicCookie(ctx, first, start)).toEqual([
      { messageId: message, link: linkTag(ctx, 'token-aaaaaaaaaaa'), issuedAt: start },
    ]);
    const again = grantCookieValue(ctx, undefined, message, 'token-aaaaaaaaaaa', start + 59_999);
    expect(again).toBe(first);
    const later = grantCookieValue(ctx, undefined, message, 'token-aaaaaaaaaaa', start + 60_000);
    expect(later).not.toBe(first);
    expect(parsePublicCookie(ctx, later, start + 60_000)).toEqual([
      { messageId: message, link: linkTag(ctx, 'token-aaaaaaaaaaa'), issuedAt: start + 60_000 },
    ]);
    // A clock that went back gives a fresh value too, never one dated in its future.
    const earlier = grantCookieValue(ctx, undefined, message, 'token-aaaaaaaaaaa', start - 1);
    expect(parsePublicCookie(ctx, earlier, start - 1)).toHaveLength(1);
    // The grant given again still ends 24 hours after the first answer.
    expect(parsePublicCookie(ctx, again, start + PUBLIC_GRANT_MS - 1)).toHaveLength(1);
    expect(parsePublicCookie(ctx, again, start + PUBLIC_GRANT_MS)).toEqual([]);
  });

  it("tells apart the token, the message, the visitor's cookie and the secret", () => {
    const base = grantCookieValue(ctx, undefined, message, 'token-bbbbbbbbbbb', start);
    const otherToken = grantCookieValue(ctx, undefined, message, 'token-ccccccccccc', start);
    expect(otherToken).not.toBe(base);
    expect(parsePublicCookie(ctx, otherToken, start)[0]?.link).toBe(linkTag(ctx, 'token-ccccccccccc'));
    // A visitor who already holds a grant keeps it beside the new one.
    const both = grantCookieValue(ctx, base, second, 'token-ddddddddddd', start + 1);
    expect(parsePublicCookie(ctx, both, start + 1).map((g) => g.messageId)).toEqual([message, second]);
    expect(grantCookieValue(ctx, undefined, second, 'token-ddddddddddd', start + 1)).not.toBe(both);
    // Another secret signs its own value, whatever this one gave.
    const elsewhere = grantCookieValue(other, undefined, message, 'token-bbbbbbbbbbb', start);
    expect(elsewhere).not.toBe(base);
    expect(parsePublicCookie(other, elsewhere, start)).toHaveLength(1);
    expect(parsePublicCookie(ctx, elsewhere, start)).toEqual([]);
  });
});
