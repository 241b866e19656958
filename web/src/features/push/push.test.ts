import { describe, expect, it } from 'vitest';
import {
  describeUserAgent,
  keyBytes,
  pushChoiceOf,
  pushSupported,
  quietHoursOf,
  quietHoursValue,
  subscriptionBody,
} from './push';

describe('pushSupported', () => {
  it('needs a service worker, the Push API and notifications, all three', () => {
    const full = { PushManager: {}, Notification: {}, navigator: { serviceWorker: {} } };
    expect(pushSupported(full)).toBe(true);
    const { PushManager: _p, ...noPush } = full;
    const { Notification: _n, ...noNotification } = full;
    expect(pushSupported(noPush)).toBe(false);
    expect(pushSupported(noNotification)).toBe(false);
    expect(pushSupported({ ...full, navigator: {} })).toBe(false);
    expect(pushSupported({ PushManager: {}, Notification: {} })).toBe(false);
  });
});

describe('pushChoiceOf', () => {
  it('answers the saved choice, else everything', () => {
    expect(pushChoiceOf('mentions_replies')).toBe('mentions_replies');
    expect(pushChoiceOf('none')).toBe('none');
    expect(pushChoiceOf(undefined)).toBe('all');
    expect(pushChoiceOf('sometimes')).toBe('all');
  });
});

describe('quiet hours', () => {
  it('reads a saved period, including one across midnight', () => {
    expect(quietHoursOf('22:30-07:00')).toEqual({ on: true, from: '22:30', to: '07:00' });
    expect(quietHoursOf('13:00-14:00')).toEqual({ on: true, from: '13:00', to: '14:00' });
  });

  it('shows off, starting from 22:00–07:00, for none or a value it cannot read', () => {
    for (const saved of [undefined, '', '25:00-07:00', '22:00', '8:00-9:00', '10:00-10:00']) {
      expect(quietHoursOf(saved)).toEqual({ on: false, from: '22:00', to: '07:00' });
    }
  });

  it('saves "" when off, HH:MM-HH:MM when on, and refuses a period that is none', () => {
    expect(quietHoursValue({ on: false, from: '', to: '' })).toBe('');
    expect(quietHoursValue({ on: true, from: '22:00', to: '06:30' })).toBe('22:00-06:30');
    // Seconds, which a time input may give, are dropped.
    expect(quietHoursValue({ on: true, from: '22:00:00', to: '06:30:00' })).toBe('22:00-06:30');
    expect(quietHoursValue({ on: true, from: '', to: '06:30' })).toBeNull();
    expect(quietHoursValue({ on: true, from: '07:00', to: '07:00' })).toBeNull();
    expect(quietHoursValue({ on: true, from: '24:00', to: '07:00' })).toBeNull();
  });
});

describe('describeUserAgent', () => {
  const cases: [string, string | null, string | null][] = [
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
      'Chrome',
      'Android',
    ],
    ['Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0', 'Firefox', 'Android'],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      'Safari',
      'iOS',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      'Edge',
      'Windows',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      'Safari',
      'macOS',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox', 'Linux'],
    [
      'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36',
      'Samsung Internet',
      'Android',
    ],
    ['curl/8.5.0', null, null],
  ];

  it.each(cases)('names %s', (agent, browser, os) => {
    expect(describeUserAgent(agent)).toEqual({ browser, os });
  });
});

describe('keyBytes', () => {
  it('decodes base64url without padding', () => {
    expect([...keyBytes('AQID_-8')]).toEqual([1, 2, 3, 255, 239]);
    expect(keyBytes('BP'.padEnd(87, 'A'))).toHaveLength(65);
  });
});

describe('subscriptionBody', () => {
  const subscription = (json: PushSubscriptionJSON) => ({ toJSON: () => json }) as PushSubscription;

  it('sends the endpoint and keys with the label, cut to 100 characters', () => {
    const json = { endpoint: 'https://push.example/abc', keys: { p256dh: 'P', auth: 'A' } };
    expect(subscriptionBody(subscription(json), 'Firefox on Android')).toEqual({
      endpoint: 'https://push.example/abc',
      keys: { p256dh: 'P', auth: 'A' },
      label: 'Firefox on Android',
    });
    expect(subscriptionBody(subscription(json), 'x'.repeat(150))?.label).toHaveLength(100);
  });

  it('answers null for a subscription without its keys', () => {
    expect(subscriptionBody(subscription({ endpoint: 'https://push.example/abc' }), 'x')).toBeNull();
  });
});
