import { describe, expect, it } from 'vitest';
import { digestMail, type DigestItem } from '../digests/mail.js';
import { dropReason, isAccountAddress, MAX_RECEIVED_HOPS } from './policy.js';
import { newReplyAddressId, readReplyToken, replyAddress, replyToken, tokenOfAddress } from './token.js';

const SECRET = 'unit-secret-unit-secret-unit-secret-0001';
const config = { localPart: 'reply', domain: 'kith.example.org' };

describe('reply tokens', () => {
  it('fit an address local part in lowercase base32 and read back to their id', () => {
    const id = newReplyAddressId();
    expect(id).toMatch(/^[a-z2-7]{16}$/);
    const token = replyToken(SECRET, id);
    expect(token).toMatch(/^[a-z2-7]{32}$/);
    const address = replyAddress(config, token);
    expect(address.split('@')[0]?.length).toBeLessThanOrEqual(64);
    expect(readReplyToken(SECRET, token)).toBe(id);
    // A mail server that upper-cases the local part changes nothing.
    expect(readReplyToken(SECRET, token.toUpperCase())).toBe(id);
  });

  it('refuse a changed signature, another secret, a changed id and other shapes', () => {
    const id = newReplyAddressId();
    const token = replyToken(SECRET, id);
    const last = token.at(-1) === 'a' ? 'b' : 'a';
    expect(readReplyToken(SECRET, `${token.slice(0, -1)}${last}`)).toBeNull();
    expect(readReplyToken('another-secret-another-secret-another-1', token)).toBeNull();
    expect(readReplyToken(SECRET, `${newReplyAddressId()}${token.slice(16)}`)).toBeNull();
    for (const bad of ['', token.slice(1), `${token}a`, token.replace(/.$/, '1'), token.replace(/^./, '-')]) {
      expect(readReplyToken(SECRET, bad), bad).toBeNull();
    }
  });

  it('are found in recipient addresses of the reply shape only', () => {
    const token = replyToken(SECRET, newReplyAddressId());
    expect(tokenOfAddress(config, `reply+${token}@kith.example.org`)).toBe(token);
    expect(tokenOfAddress(config, `REPLY+${token.toUpperCase()}@KITH.EXAMPLE.ORG`)).toBe(token);
    expect(tokenOfAddress(config, `reply+${token}@another.example`)).toBe(token);
    expect(tokenOfAddress(config, 'reply@kith.example.org')).toBeNull();
    expect(tokenOfAddress(config, `replies+${token}@kith.example.org`)).toBeNull();
    expect(tokenOfAddress(config, `reply+${token}x@kith.example.org`)).toBeNull();
  });
});

describe('automatic mails and loops', () => {
  const lookup = (headers: Record<string, string[]>) => (name: string) => headers[name] ?? [];

  it('lets a person’s mail through', () => {
    expect(dropReason(lookup({ 'message-id': ['<CAB12@mail.gmail.com>'] }), 'ana@example.org', 'localhost')).toBeNull();
    expect(dropReason(lookup({ 'auto-submitted': ['no'] }), undefined, 'localhost')).toBeNull();
    expect(dropReason(lookup({ precedence: ['first-class'] }), undefined, 'localhost')).toBeNull();
  });

  it.each([
    [{ 'auto-submitted': ['auto-replied'] }, undefined, 'auto_reply'],
    [{ 'auto-submitted': ['Auto-Generated'] }, undefined, 'auto_reply'],
    [{ 'x-autoreply': ['yes'] }, undefined, 'auto_reply'],
    [{ 'x-autorespond': ['1'] }, undefined, 'auto_reply'],
    [{ precedence: ['Bulk'] }, undefined, 'bulk'],
    [{ precedence: ['list'] }, undefined, 'bulk'],
    [{}, '', 'null_sender'],
    [{}, 'MAILER-DAEMON', 'null_sender'],
    [{ 'return-path': ['<>'] }, 'ana@example.org', 'null_sender'],
    [{ 'return-path': ['<>'] }, undefined, 'null_sender'],
    [{ 'x-kith-mail': ['digest'] }, 'ana@example.org', 'loop'],
    [{ 'message-id': ['<0b9d3c1a-7e55-4d2f-9a43-2f1c8e6d4b10@kith.example.org>'] }, undefined, 'loop'],
    [{ received: Array.from({ length: MAX_RECEIVED_HOPS + 1 }, () => 'from a by b') }, undefined, 'loop'],
  ] as const)('drops %j (envelope sender %j) as %s', (headers, sender, reason) => {
    expect(dropReason(lookup(headers as Record<string, string[]>), sender, 'kith.example.org')).toBe(reason);
  });

  it('keeps a UUID Message-ID of another domain', () => {
    const id = '<0b9d3c1a-7e55-4d2f-9a43-2f1c8e6d4b10@mail.example.net>';
    expect(dropReason(lookup({ 'message-id': [id] }), undefined, 'kith.example.org')).toBeNull();
  });
});

describe('whose reply it is', () => {
  it('compares the whole address without regard to case', () => {
    expect(isAccountAddress('Ana@Example.org', 'ana@example.org')).toBe(true);
    expect(isAccountAddress('ana+kith@example.org', 'ana@example.org')).toBe(false);
    expect(isAccountAddress('a.na@example.org', 'ana@example.org')).toBe(false);
    expect(isAccountAddress(null, 'ana@example.org')).toBe(false);
  });
});

describe('Reply-To of notification mails', () => {
  const item = (title: string, replyAddressOfItem: string | null): DigestItem => ({
    groupId: 'g',
    groupName: 'Family',
    kind: 'post',
    title,
    author: 'Ben',
    url: `https://kith.example.org/messages/${title}`,
    imageUrl: null,
    replyAddress: replyAddressOfItem,
  });
  const mail = (items: DigestItem[]) =>
    digestMail(
      { publicUrl: 'https://kith.example.org', defaultLang: 'en_US' },
      { login: 'ana@example.org', name: 'Ana', lang: 'en_US' },
      { frequency: 'daily', items, total: items.length, unsubscribe: { page: 'p', api: 'a' } },
    );

  it('has none while reply by e-mail is off', () => {
    const draft = mail([item('one', null)]);
    expect(draft.headers?.['Reply-To']).toBeUndefined();
    expect(draft.text).not.toContain('mailto:');
  });

  it('is the message’s address for a mail about one message, without item links', () => {
    const draft = mail([item('one', 'reply+a@kith.example.org'), item('two', 'reply+a@kith.example.org')]);
    expect(draft.headers?.['Reply-To']).toBe('reply+a@kith.example.org');
    expect(draft.text).not.toContain('mailto:');
  });

  it('is the first item’s address for a mail about several, each item with its own link', () => {
    const draft = mail([item('one', 'reply+a@kith.example.org'), item('two', 'reply+b@kith.example.org')]);
    expect(draft.headers?.['Reply-To']).toBe('reply+a@kith.example.org');
    expect(draft.text).toContain('Reply by e-mail: mailto:reply+a@kith.example.org?subject=Re%3A%20one');
    expect(draft.text).toContain('Reply by e-mail: mailto:reply+b@kith.example.org?subject=Re%3A%20two');
  });
});
