import webpush from 'web-push';
import { describe, expect, it } from 'vitest';
import { configLoader, useTempCheckout } from '../../../test/config-loader.js';

/** The Web Push variables of the configuration (PUSH_*, VAPID_*; docs/api §11.9). */

const { load, problemsOf } = configLoader(useTempCheckout('kith-push-config-'));

describe('Web Push configuration', () => {
  it('is on by default, with generated keys, and the loopback switch off', () => {
    const { push } = load({ PUBLIC_URL: 'https://kith.example.org/family' });
    expect(push).toEqual({
      enabled: true,
      vapidKeys: null,
      subject: 'https://kith.example.org/family',
      allowLoopback: false,
    });
  });

  it('takes the contact from MAIL_FROM when PUBLIC_URL is not https', () => {
    expect(load({ PUBLIC_URL: 'http://kith.lan', MAIL_FROM: 'Kith <family@example.org>' }).push.subject).toBe(
      'mailto:family@example.org',
    );
    expect(load({ VAPID_SUBJECT: 'mailto:admin@example.org' }).push.subject).toBe('mailto:admin@example.org');
    expect(load({ PUSH_ENABLED: 'false' }).push.enabled).toBe(false);
  });

  it('takes given VAPID keys, checked for a P-256 pair’s sizes', () => {
    const keys = webpush.generateVAPIDKeys();
    expect(load({ VAPID_PUBLIC_KEY: keys.publicKey, VAPID_PRIVATE_KEY: keys.privateKey }).push.vapidKeys).toEqual(keys);
    expect(problemsOf({ VAPID_PUBLIC_KEY: keys.publicKey })).toEqual([
      'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY go together: set both, or neither to have them generated',
    ]);
    expect(problemsOf({ VAPID_PUBLIC_KEY: keys.privateKey, VAPID_PRIVATE_KEY: keys.publicKey })).toEqual([
      'VAPID_PUBLIC_KEY must be a P-256 public key in base64url (65 bytes)',
      'VAPID_PRIVATE_KEY must be a P-256 private key in base64url (32 bytes)',
    ]);
  });

  it('refuses a contact push services would refuse', () => {
    expect(problemsOf({ VAPID_SUBJECT: 'http://example.org' })).toEqual([
      'VAPID_SUBJECT must be a mailto: address or an https: URL (got "http://example.org")',
    ]);
  });
});
