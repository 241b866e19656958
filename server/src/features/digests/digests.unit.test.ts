import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DigestFrequency } from '../../jobs/job-queue.js';
import { checkImageSignature, signedImageUrl } from '../files/signing.js';
import { digestMail, type DigestContent, type DigestItem } from './mail.js';
import { latestSlot, wallTime, zonedInstant } from './schedule.js';
import { checkUnsubscribeToken, unsubscribeToken, unsubscribeUrls } from './unsubscribe.js';

const SECOND = 1000;
const HOUR = 60 * 60 * SECOND;
const DAY = 24 * HOUR;

/** An instant written in ISO form, for expected values computed without the code under test. */
const at = (iso: string): number => Date.parse(iso);

/** The locale files of the product, found from this file's place in the repository. */
const LOCALES = path.resolve(import.meta.dirname, '..', '..', '..', '..', 'locales');

function mailTextsOf(lang: string): Record<string, string> {
  const file = JSON.parse(readFileSync(path.join(LOCALES, `${lang}.json`), 'utf8')) as {
    mail: Record<string, string>;
  };
  return file.mail;
}

describe('latestSlot', () => {
  /** Each case: the frequency, the zone, now, and the expected slot, all as ISO instants. */
  function expectSlot(frequency: DigestFrequency, timeZone: string, now: string, expected: string): void {
    expect(new Date(latestSlot(frequency, at(now), timeZone)).toISOString()).toBe(new Date(at(expected)).toISOString());
  }

  describe('hourly', () => {
    it('is local minute 0 in UTC', () => {
      expectSlot('hourly', 'UTC', '2026-05-10T14:37:12.345Z', '2026-05-10T14:00:00.000Z');
      expectSlot('hourly', 'UTC', '2026-05-10T14:00:00.000Z', '2026-05-10T14:00:00.000Z');
      expectSlot('hourly', 'UTC', '2026-05-10T13:59:59.999Z', '2026-05-10T13:00:00.000Z');
    });

    it('is UTC minute 30 in Asia/Kolkata (UTC+5:30)', () => {
      // 14:37Z is 20:07 in Kolkata: its hour began at 20:00 local = 14:30Z.
      expectSlot('hourly', 'Asia/Kolkata', '2026-05-10T14:37:12.345Z', '2026-05-10T14:30:00.000Z');
      expectSlot('hourly', 'Asia/Kolkata', '2026-05-10T14:30:00.000Z', '2026-05-10T14:30:00.000Z');
      expectSlot('hourly', 'Asia/Kolkata', '2026-05-10T14:29:59.999Z', '2026-05-10T13:30:00.000Z');
    });

    it('keeps to whole hours across a daylight-saving change', () => {
      // 01:30Z on 29 March 2026 is 03:30 CEST, just after the jump from 02:00 to 03:00.
      expectSlot('hourly', 'Europe/Paris', '2026-03-29T01:30:00.000Z', '2026-03-29T01:00:00.000Z');
      expectSlot('hourly', 'Europe/Paris', '2026-03-29T00:59:59.999Z', '2026-03-29T00:00:00.000Z');
    });
  });

  describe('daily', () => {
    it('is 07:00 local at or before now, in UTC', () => {
      expectSlot('daily', 'UTC', '2026-05-10T12:00:00.000Z', '2026-05-10T07:00:00.000Z');
      expectSlot('daily', 'UTC', '2026-05-10T07:00:00.000Z', '2026-05-10T07:00:00.000Z');
      expectSlot('daily', 'UTC', '2026-05-10T06:59:59.999Z', '2026-05-09T07:00:00.000Z');
    });

    it('is 06:00Z in Paris winter and 05:00Z in Paris summer', () => {
      expectSlot('daily', 'Europe/Paris', '2026-01-15T10:00:00.000Z', '2026-01-15T06:00:00.000Z');
      expectSlot('daily', 'Europe/Paris', '2026-01-15T06:00:00.000Z', '2026-01-15T06:00:00.000Z');
      expectSlot('daily', 'Europe/Paris', '2026-01-15T05:59:59.999Z', '2026-01-14T06:00:00.000Z');
      expectSlot('daily', 'Europe/Paris', '2026-07-15T05:00:00.000Z', '2026-07-15T05:00:00.000Z');
      expectSlot('daily', 'Europe/Paris', '2026-07-15T04:59:59.999Z', '2026-07-14T05:00:00.000Z');
    });

    it('follows Paris across the spring change (29 March 2026)', () => {
      expectSlot('daily', 'Europe/Paris', '2026-03-29T12:00:00.000Z', '2026-03-29T05:00:00.000Z');
      expectSlot('daily', 'Europe/Paris', '2026-03-29T05:00:00.000Z', '2026-03-29T05:00:00.000Z');
      // 1 ms before 07:00 CEST: the day before, still winter time.
      expectSlot('daily', 'Europe/Paris', '2026-03-29T04:59:59.999Z', '2026-03-28T06:00:00.000Z');
      expectSlot('daily', 'Europe/Paris', '2026-03-30T05:30:00.000Z', '2026-03-30T05:00:00.000Z');
    });

    it('follows Paris across the autumn change (25 October 2026)', () => {
      expectSlot('daily', 'Europe/Paris', '2026-10-25T12:00:00.000Z', '2026-10-25T06:00:00.000Z');
      expectSlot('daily', 'Europe/Paris', '2026-10-25T06:00:00.000Z', '2026-10-25T06:00:00.000Z');
      // 05:30Z is 06:30 CET: before 07:00 local although after the summer 07:00 (05:00Z).
      expectSlot('daily', 'Europe/Paris', '2026-10-25T05:30:00.000Z', '2026-10-24T05:00:00.000Z');
      expectSlot('daily', 'Europe/Paris', '2026-10-25T05:59:59.999Z', '2026-10-24T05:00:00.000Z');
    });

    it('follows America/New_York across both changes of 2026', () => {
      // Summer time from 8 March: 07:00 EDT = 11:00Z; before, 07:00 EST = 12:00Z.
      expectSlot('daily', 'America/New_York', '2026-03-08T12:00:00.000Z', '2026-03-08T11:00:00.000Z');
      expectSlot('daily', 'America/New_York', '2026-03-08T10:59:59.999Z', '2026-03-07T12:00:00.000Z');
      // Winter time from 1 November.
      expectSlot('daily', 'America/New_York', '2026-11-01T12:30:00.000Z', '2026-11-01T12:00:00.000Z');
      expectSlot('daily', 'America/New_York', '2026-11-01T11:30:00.000Z', '2026-10-31T11:00:00.000Z');
    });

    it('uses the local date in Pacific/Auckland, a day ahead of UTC', () => {
      // 07:00 NZDT (UTC+13) on 15 January is 18:00Z on 14 January.
      expectSlot('daily', 'Pacific/Auckland', '2026-01-15T00:00:00.000Z', '2026-01-14T18:00:00.000Z');
      expectSlot('daily', 'Pacific/Auckland', '2026-01-14T18:00:00.000Z', '2026-01-14T18:00:00.000Z');
      expectSlot('daily', 'Pacific/Auckland', '2026-01-14T17:59:59.999Z', '2026-01-13T18:00:00.000Z');
      // Winter time (UTC+12) from 5 April 2026; summer time again from 27 September.
      expectSlot('daily', 'Pacific/Auckland', '2026-04-05T00:00:00.000Z', '2026-04-04T19:00:00.000Z');
      expectSlot('daily', 'Pacific/Auckland', '2026-09-27T00:00:00.000Z', '2026-09-26T18:00:00.000Z');
      expectSlot('daily', 'Pacific/Auckland', '2026-09-26T17:59:59.999Z', '2026-09-25T19:00:00.000Z');
    });
  });

  describe('weekly', () => {
    it('is the latest Monday 07:00 local', () => {
      // 2026-05-04 is a Monday; the 10th a Sunday.
      expect(new Date(at('2026-05-04T00:00:00Z')).getUTCDay()).toBe(1);
      expectSlot('weekly', 'UTC', '2026-05-10T23:59:59.999Z', '2026-05-04T07:00:00.000Z');
      expectSlot('weekly', 'UTC', '2026-05-04T07:00:00.000Z', '2026-05-04T07:00:00.000Z');
      expectSlot('weekly', 'UTC', '2026-05-04T06:59:59.999Z', '2026-04-27T07:00:00.000Z');
    });

    it('follows Paris across both changes of 2026', () => {
      // Monday 30 March is the first Monday of summer time; Monday 23 March the last of winter.
      expect(new Date(at('2026-03-30T00:00:00Z')).getUTCDay()).toBe(1);
      expectSlot('weekly', 'Europe/Paris', '2026-04-01T12:00:00.000Z', '2026-03-30T05:00:00.000Z');
      expectSlot('weekly', 'Europe/Paris', '2026-03-30T05:00:00.000Z', '2026-03-30T05:00:00.000Z');
      expectSlot('weekly', 'Europe/Paris', '2026-03-30T04:59:59.999Z', '2026-03-23T06:00:00.000Z');
      expectSlot('weekly', 'Europe/Paris', '2026-03-29T12:00:00.000Z', '2026-03-23T06:00:00.000Z');
      // Monday 26 October is the first Monday of winter time.
      expect(new Date(at('2026-10-26T00:00:00Z')).getUTCDay()).toBe(1);
      expectSlot('weekly', 'Europe/Paris', '2026-10-26T06:00:00.000Z', '2026-10-26T06:00:00.000Z');
      expectSlot('weekly', 'Europe/Paris', '2026-10-26T05:59:59.999Z', '2026-10-19T05:00:00.000Z');
    });

    it('follows America/New_York', () => {
      expectSlot('weekly', 'America/New_York', '2026-03-12T15:00:00.000Z', '2026-03-09T11:00:00.000Z');
      expectSlot('weekly', 'America/New_York', '2026-03-09T10:59:59.999Z', '2026-03-02T12:00:00.000Z');
    });

    it('uses the local Monday in Pacific/Auckland (a Sunday in UTC)', () => {
      expect(new Date(at('2026-06-15T00:00:00Z')).getUTCDay()).toBe(1);
      expectSlot('weekly', 'Pacific/Auckland', '2026-06-14T19:00:00.000Z', '2026-06-14T19:00:00.000Z');
      expectSlot('weekly', 'Pacific/Auckland', '2026-06-14T18:59:59.999Z', '2026-06-07T19:00:00.000Z');
    });
  });

  describe('monthly', () => {
    it('is the latest 1st of the month 07:00 local', () => {
      expectSlot('monthly', 'UTC', '2026-02-14T00:00:00.000Z', '2026-02-01T07:00:00.000Z');
      expectSlot('monthly', 'UTC', '2026-02-01T07:00:00.000Z', '2026-02-01T07:00:00.000Z');
      expectSlot('monthly', 'UTC', '2026-02-01T06:59:59.999Z', '2026-01-01T07:00:00.000Z');
    });

    it('goes back across a year boundary', () => {
      expectSlot('monthly', 'UTC', '2026-01-01T06:00:00.000Z', '2025-12-01T07:00:00.000Z');
      expectSlot('monthly', 'UTC', '2026-01-01T07:00:00.000Z', '2026-01-01T07:00:00.000Z');
      expectSlot('monthly', 'America/New_York', '2026-01-01T11:59:59.999Z', '2025-12-01T12:00:00.000Z');
      // Still 31 December in New York.
      expectSlot('monthly', 'America/New_York', '2026-01-01T04:00:00.000Z', '2025-12-01T12:00:00.000Z');
    });

    it('follows Paris across both changes of 2026', () => {
      expectSlot('monthly', 'Europe/Paris', '2026-04-01T05:00:00.000Z', '2026-04-01T05:00:00.000Z');
      expectSlot('monthly', 'Europe/Paris', '2026-04-01T04:59:59.999Z', '2026-03-01T06:00:00.000Z');
      expectSlot('monthly', 'Europe/Paris', '2026-11-01T06:00:00.000Z', '2026-11-01T06:00:00.000Z');
      expectSlot('monthly', 'Europe/Paris', '2026-11-01T05:59:59.999Z', '2026-10-01T05:00:00.000Z');
    });

    it('starts the new year in Pacific/Auckland while UTC is still in December', () => {
      // 07:00 NZDT on 1 January 2027 is 18:00Z on 31 December 2026.
      expectSlot('monthly', 'Pacific/Auckland', '2026-12-31T18:00:00.000Z', '2026-12-31T18:00:00.000Z');
      expectSlot('monthly', 'Pacific/Auckland', '2026-12-31T17:59:59.999Z', '2026-11-30T18:00:00.000Z');
    });
  });
});

describe('zonedInstant', () => {
  it('is the instant a local clock shows the hour', () => {
    expect(zonedInstant(2026, 3, 28, 7, 'Europe/Paris')).toBe(at('2026-03-28T06:00:00Z'));
    expect(zonedInstant(2026, 3, 29, 7, 'Europe/Paris')).toBe(at('2026-03-29T05:00:00Z'));
    expect(zonedInstant(2026, 10, 25, 7, 'Europe/Paris')).toBe(at('2026-10-25T06:00:00Z'));
    expect(zonedInstant(2026, 7, 1, 7, 'America/New_York')).toBe(at('2026-07-01T11:00:00Z'));
    expect(zonedInstant(2026, 1, 15, 7, 'Pacific/Auckland')).toBe(at('2026-01-14T18:00:00Z'));
    expect(zonedInstant(2026, 5, 10, 7, 'Asia/Kolkata')).toBe(at('2026-05-10T01:30:00Z'));
  });

  it('lets the month and the day overflow', () => {
    expect(zonedInstant(2026, 1, 0, 7, 'UTC')).toBe(at('2025-12-31T07:00:00Z'));
    expect(zonedInstant(2026, 0, 1, 7, 'UTC')).toBe(at('2025-12-01T07:00:00Z'));
    expect(zonedInstant(2026, 13, 1, 7, 'UTC')).toBe(at('2027-01-01T07:00:00Z'));
    expect(zonedInstant(2026, 3, 32, 7, 'Europe/Paris')).toBe(at('2026-04-01T05:00:00Z'));
  });

  it('gives the first instant after the gap for an hour that is skipped', () => {
    // 02:00 does not exist in Paris on 29 March 2026: clocks go from 02:00 CET to 03:00 CEST (01:00Z).
    expect(zonedInstant(2026, 3, 29, 2, 'Europe/Paris')).toBe(at('2026-03-29T01:00:00Z'));
  });

  // The doc comment promises the first time for an hour that happens twice. On 25 October 2026
  // Paris shows 02:00 first at 00:00Z (CEST), then again at 01:00Z (CET).
  it('gives the first time for an hour that happens twice', () => {
    expect(zonedInstant(2026, 10, 25, 2, 'Europe/Paris')).toBe(at('2026-10-25T00:00:00Z'));
    // Auckland, 5 April 2026: 02:00 NZDT = 13:00Z, then 02:00 NZST = 14:00Z.
    expect(zonedInstant(2026, 4, 5, 2, 'Pacific/Auckland')).toBe(at('2026-04-04T13:00:00Z'));
  });
});

describe('wallTime', () => {
  it('reads the local calendar, clock and weekday', () => {
    // 2026-03-29T23:30Z is 01:30 CEST on Monday 30 March.
    expect(wallTime(at('2026-03-29T23:30:15Z'), 'Europe/Paris')).toEqual({
      year: 2026,
      month: 3,
      day: 30,
      hour: 1,
      minute: 30,
      second: 15,
      weekday: 1,
    });
    // Midnight is hour 0 (not 24), and Sunday is 7.
    expect(wallTime(at('2026-05-10T00:00:00Z'), 'UTC')).toEqual({
      year: 2026,
      month: 5,
      day: 10,
      hour: 0,
      minute: 0,
      second: 0,
      weekday: 7,
    });
    expect(wallTime(at('2026-12-31T18:00:00Z'), 'Pacific/Auckland')).toMatchObject({
      year: 2027,
      month: 1,
      day: 1,
      hour: 7,
      weekday: 5,
    });
  });
});

describe('unsubscribe tokens', () => {
  const secret = 'unit-test-secret';
  const otherSecret = 'another-secret';
  const userId = '3f1c2a9e-5b7d-4c8e-9a1b-2c3d4e5f6a7b';
  const otherUserId = '8a7b6c5d-4e3f-4a1b-9c2d-3e4f5a6b7c8d';
  // A whole second, so "90 days later" is exact to the millisecond.
  const sentAt = at('2026-05-10T07:00:00Z');
  const TTL = 90 * DAY;

  function parts(token: string): { exp: string; sig: string } {
    const match = /^(\d+)\.(.+)$/.exec(token);
    if (match === null) return expect.unreachable(`token "${token}" is not <exp>.<sig>`);
    return { exp: match[1] ?? '', sig: match[2] ?? '' };
  }

  it('is <exp>.<sig> with exp 90 days after sending, in seconds', () => {
    const token = unsubscribeToken(secret, userId, sentAt);
    expect(token).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/);
    expect(Number(parts(token).exp)).toBe((sentAt + TTL) / SECOND);
  });

  it('is accepted for the same user and secret', () => {
    const token = unsubscribeToken(secret, userId, sentAt);
    expect(checkUnsubscribeToken(secret, userId, token, sentAt)).toBe(true);
    expect(checkUnsubscribeToken(secret, userId, token, sentAt + 30 * DAY)).toBe(true);
  });

  it('is refused for another user or another secret', () => {
    const token = unsubscribeToken(secret, userId, sentAt);
    expect(checkUnsubscribeToken(secret, otherUserId, token, sentAt)).toBe(false);
    expect(checkUnsubscribeToken(otherSecret, userId, token, sentAt)).toBe(false);
  });

  it('is refused when the signature or the expiry was changed', () => {
    const token = unsubscribeToken(secret, userId, sentAt);
    const { exp, sig } = parts(token);
    const otherFirst = sig.startsWith('A') ? 'B' : 'A';
    expect(checkUnsubscribeToken(secret, userId, `${exp}.${otherFirst}${sig.slice(1)}`, sentAt)).toBe(false);
    expect(checkUnsubscribeToken(secret, userId, `${Number(exp) + 1}.${sig}`, sentAt)).toBe(false);
    expect(checkUnsubscribeToken(secret, userId, `${Number(exp) + 365 * 86_400}.${sig}`, sentAt)).toBe(false);
    // A valid token of another user does not fit this one's expiry either.
    const other = parts(unsubscribeToken(secret, otherUserId, sentAt));
    expect(checkUnsubscribeToken(secret, userId, `${exp}.${other.sig}`, sentAt)).toBe(false);
  });

  it('is refused when malformed', () => {
    const token = unsubscribeToken(secret, userId, sentAt);
    const { exp, sig } = parts(token);
    for (const bad of [
      '',
      'nonsense',
      exp,
      `${exp}.`,
      `.${sig}`,
      `${exp}.${sig}x`,
      `${exp}.${sig.slice(1)}`,
      `${exp}.${sig}.${exp}`,
      ` ${token}`,
      `${token}\n`,
      `-${exp}.${sig}`,
      `${exp}.${sig.replace(/.$/, '=')}`,
    ]) {
      expect(checkUnsubscribeToken(secret, userId, bad, sentAt), JSON.stringify(bad)).toBe(false);
    }
  });

  it('works until 90 days have passed, and not after', () => {
    const token = unsubscribeToken(secret, userId, sentAt);
    expect(checkUnsubscribeToken(secret, userId, token, sentAt + TTL - 1)).toBe(true);
    expect(checkUnsubscribeToken(secret, userId, token, sentAt + TTL)).toBe(false);
    expect(checkUnsubscribeToken(secret, userId, token, sentAt + TTL + 1)).toBe(false);
    expect(checkUnsubscribeToken(secret, userId, token, sentAt + 365 * DAY)).toBe(false);
  });

  it('builds the page and API URLs', () => {
    const token = unsubscribeToken(secret, userId, sentAt);
    expect(unsubscribeUrls('https://kith.example/family', userId, token)).toEqual({
      page: `https://kith.example/family/stop-notification-emails/${userId}/${token}`,
      api: `https://kith.example/family/api/stop-notification-emails/${userId}/${token}`,
    });
  });
});

describe('signed image URLs', () => {
  const secret = 'unit-test-secret';
  const publicUrl = 'https://kith.example/family';
  const fileId = '0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e';
  const otherFileId = '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
  const crop = { type: 'crop', w: 160, h: 160 } as const;
  const sentAt = at('2026-05-10T09:30:00Z');

  function signedParts(url: string): { exp: string; sig: string } {
    const query = new URL(url).searchParams;
    return { exp: query.get('exp') ?? '', sig: query.get('sig') ?? '' };
  }

  const params = (over: Partial<Record<'type' | 'w' | 'h' | 'id', string>> = {}) => ({
    type: 'crop',
    w: '160',
    h: '160',
    id: fileId,
    ...over,
  });

  it('points at the crop of the file, with exp and sig', () => {
    const url = signedImageUrl(secret, publicUrl, crop, fileId, sentAt);
    expect(url.startsWith(`${publicUrl}/api/images/crop/160/160/${fileId}?exp=`)).toBe(true);
    expect(url).toMatch(/\?exp=\d+&sig=[A-Za-z0-9_-]+$/);
  });

  it('passes for the same type, size and file', () => {
    const { exp, sig } = signedParts(signedImageUrl(secret, publicUrl, crop, fileId, sentAt));
    expect(checkImageSignature(secret, params(), exp, sig, sentAt)).toBe('ok');
    expect(checkImageSignature(secret, params(), exp, sig, sentAt + 29 * DAY)).toBe('ok');
  });

  it('is bad for another size, type, file or secret, or without exp and sig', () => {
    const { exp, sig } = signedParts(signedImageUrl(secret, publicUrl, crop, fileId, sentAt));
    expect(checkImageSignature(secret, params({ w: '320' }), exp, sig, sentAt)).toBe('bad');
    expect(checkImageSignature(secret, params({ h: '320' }), exp, sig, sentAt)).toBe('bad');
    expect(checkImageSignature(secret, params({ type: 'thumbnail' }), exp, sig, sentAt)).toBe('bad');
    expect(checkImageSignature(secret, params({ id: otherFileId }), exp, sig, sentAt)).toBe('bad');
    expect(checkImageSignature('another-secret', params(), exp, sig, sentAt)).toBe('bad');
    expect(checkImageSignature(secret, params(), String(Number(exp) + 86_400), sig, sentAt)).toBe('bad');
    expect(checkImageSignature(secret, params(), undefined, sig, sentAt)).toBe('bad');
    expect(checkImageSignature(secret, params(), exp, undefined, sentAt)).toBe('bad');
  });

  it('expires about 30 days after sending', () => {
    const { exp, sig } = signedParts(signedImageUrl(secret, publicUrl, crop, fileId, sentAt));
    const expMs = Number(exp) * SECOND;
    // Rounded up to a whole UTC day: between 30 and 31 days.
    expect(expMs % DAY).toBe(0);
    expect(expMs).toBeGreaterThanOrEqual(sentAt + 30 * DAY);
    expect(expMs).toBeLessThan(sentAt + 31 * DAY);
    expect(checkImageSignature(secret, params(), exp, sig, expMs - 1)).toBe('ok');
    expect(checkImageSignature(secret, params(), exp, sig, expMs)).toBe('expired');
    expect(checkImageSignature(secret, params(), exp, sig, sentAt + 31 * DAY)).toBe('expired');
  });
});

describe('digestMail', () => {
  const config = { publicUrl: 'https://kith.example/family', defaultLang: 'en_US' };
  const user = { login: 'ana@example.org', name: 'Ana', lang: 'en_US' };
  const unsubscribe = {
    page: 'https://kith.example/family/stop-notification-emails/u1/123.abc',
    api: 'https://kith.example/family/api/stop-notification-emails/u1/123.abc',
  };

  function item(over: Partial<DigestItem> & Pick<DigestItem, 'groupId' | 'title'>): DigestItem {
    return {
      groupName: `Group ${over.groupId}`,
      kind: 'post',
      author: 'Bea',
      url: `https://kith.example/family/g/${over.groupId}/${encodeURIComponent(over.title)}`,
      imageUrl: null,
      ...over,
    };
  }

  function content(items: DigestItem[], over: Partial<DigestContent> = {}): DigestContent {
    return { frequency: 'daily', items, total: items.length, unsubscribe, ...over };
  }

  /** Asserts that the needles occur in this order in the haystack, each once. */
  function expectInOrder(haystack: string, needles: string[]): void {
    let from = -1;
    for (const needle of needles) {
      const index = haystack.indexOf(needle);
      expect(index, `${needle} is missing`).toBeGreaterThan(-1);
      expect(haystack.indexOf(needle, index + 1), `${needle} appears twice`).toBe(-1);
      expect(index, `${needle} is out of order`).toBeGreaterThan(from);
      from = index;
    }
  }

  it('is a digest to the user, with the one-click unsubscribe headers', () => {
    const mail = digestMail(config, user, content([item({ groupId: 'g1', title: 'Hello' })]));
    expect(mail.kind).toBe('digest');
    expect(mail.to).toBe('ana@example.org');
    expect(mail.headers).toEqual({
      'List-Unsubscribe': `<${unsubscribe.api}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    // The unsubscribe page is linked in both parts.
    expect(mail.text).toContain(unsubscribe.page);
    expect(mail.html).toContain(`href="${unsubscribe.page}"`);
    expect(mail.text).toContain('every day');
  });

  it('groups the items under their group, in the order of each group first item', () => {
    const items = [
      item({ groupId: 'g2', groupName: 'Cousins', title: 'First news' }),
      item({ groupId: 'g1', groupName: 'Choir', title: 'Rehearsal moved' }),
      item({ groupId: 'g2', groupName: 'Cousins', title: 'Second news', kind: 'comment' }),
      item({ groupId: 'g3', groupName: 'Hiking', title: 'Sunday walk' }),
      item({ groupId: 'g1', groupName: 'Choir', title: 'New score' }),
    ];
    const mail = digestMail(config, user, content(items));
    expectInOrder(mail.text, [
      '== Cousins ==',
      '* First news',
      '* Second news',
      '== Choir ==',
      '* Rehearsal moved',
      '* New score',
      '== Hiking ==',
      '* Sunday walk',
    ]);
    expectInOrder(mail.html, [
      '>Cousins</h2>',
      '>First news</a>',
      '>Second news</a>',
      '>Choir</h2>',
      '>Rehearsal moved</a>',
      '>New score</a>',
      '>Hiking</h2>',
      '>Sunday walk</a>',
    ]);
    for (const { url } of items) {
      expect(mail.text).toContain(url);
      expect(mail.html).toContain(`href="${url}"`);
    }
  });

  it('escapes a title in the HTML part and keeps it verbatim in the text part', () => {
    const title = '<script>alert(1)</script> & "x"';
    const mail = digestMail(config, user, content([item({ groupId: 'g1', groupName: '<b>Tom & Jerry</b>', title })]));
    expect(mail.html).not.toContain('<script');
    expect(mail.html).not.toContain('<b>');
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;');
    expect(mail.html).toContain('&lt;b&gt;Tom &amp; Jerry&lt;/b&gt;');
    expect(mail.text).toContain(`* ${title}`);
    expect(mail.text).toContain('== <b>Tom & Jerry</b> ==');
  });

  it('shows an empty title as a message without text', () => {
    const mail = digestMail(
      config,
      user,
      content([item({ groupId: 'g1', title: '' }), item({ groupId: 'g1', title: '   ', kind: 'comment' })]),
    );
    const noTitle = 'A message without text';
    expect(mail.text.split(`* ${noTitle}\n`)).toHaveLength(3);
    expect(mail.html.split(`>${noTitle}</a>`)).toHaveLength(3);
  });

  it('names the author, or says only post or comment once the author is gone', () => {
    const mail = digestMail(
      config,
      user,
      content([
        item({ groupId: 'g1', title: 'A', author: 'Bea' }),
        item({ groupId: 'g1', title: 'B', author: 'Carl', kind: 'comment' }),
        item({ groupId: 'g1', title: 'C', author: null }),
        item({ groupId: 'g1', title: 'D', author: null, kind: 'comment' }),
      ]),
    );
    expect(mail.text).toContain('* A\n  New post by Bea\n');
    expect(mail.text).toContain('* B\n  New comment by Carl\n');
    expect(mail.text).toContain('* C\n  New post\n');
    expect(mail.text).toContain('* D\n  New comment\n');
    expect(mail.html).toContain('>New post</div>');
    expect(mail.html).toContain('>New comment</div>');
  });

  it('shows a picture only for an item that has one', () => {
    const imageUrl = 'https://kith.example/family/api/images/crop/160/160/f1?exp=1&sig=abc';
    const mail = digestMail(
      config,
      user,
      content([item({ groupId: 'g1', title: 'With', imageUrl }), item({ groupId: 'g1', title: 'Without' })]),
    );
    expect(mail.html.match(/<img /g)).toHaveLength(1);
    expect(mail.html).toContain('src="https://kith.example/family/api/images/crop/160/160/f1?exp=1&amp;sig=abc"');
  });

  it('counts what was left out', () => {
    const two = [item({ groupId: 'g1', title: 'A' }), item({ groupId: 'g1', title: 'B' })];
    expect(digestMail(config, user, content(two, { total: 7 })).text).toContain('and 5 more messages');
    expect(digestMail(config, user, content(two, { total: 3 })).text).toContain('and 1 more message\n');
    const all = digestMail(config, user, content(two));
    expect(all.text).not.toMatch(/and \d+ more/);
    expect(all.html).not.toMatch(/and \d+ more/);
  });

  it('pluralises the subject', () => {
    const one = [item({ groupId: 'g1', title: 'A' })];
    expect(digestMail(config, user, content(one)).subject).toBe('1 new message in your groups');
    expect(digestMail(config, user, content(one, { total: 5 })).subject).toBe('5 new messages in your groups');
  });

  it('uses the Czech _few form for 3', () => {
    expect(new Intl.PluralRules('cs-CZ').select(3)).toBe('few');
    const few = mailTextsOf('cs_CZ').digest_subject_few;
    expect(few).toBeDefined();
    const mail = digestMail(
      config,
      { ...user, lang: 'cs_CZ' },
      content([item({ groupId: 'g1', title: 'A' })], { total: 3 }),
    );
    expect(mail.subject).toBe((few ?? '').replace(/\{\{\s*count\s*\}\}/g, '3'));
    expect(mail.html).toContain('<html lang="cs-CZ">');
  });

  describe('language', () => {
    const one = content([item({ groupId: 'g1', title: 'A' })]);

    it('is the user language when offered', () => {
      const french = mailTextsOf('fr_FR');
      const mail = digestMail(config, { ...user, lang: 'fr_FR' }, one);
      expect(mail.html).toContain('<html lang="fr-FR">');
      expect(mail.subject).toBe((french.digest_subject_one ?? '').replace(/\{\{\s*count\s*\}\}/g, '1'));
    });

    it('falls back to the instance default for an unknown or missing language', () => {
      for (const lang of ['xx_XX', 'fr', null]) {
        const mail = digestMail({ ...config, defaultLang: 'cs_CZ' }, { ...user, lang }, one);
        expect(mail.html, String(lang)).toContain('<html lang="cs-CZ">');
      }
    });

    it('falls back to en_US when the instance default is not offered either', () => {
      for (const lang of ['xx_XX', null]) {
        const mail = digestMail({ ...config, defaultLang: 'tlh_QO' }, { ...user, lang }, one);
        expect(mail.html, String(lang)).toContain('<html lang="en-US">');
        expect(mail.subject).toBe('1 new message in your groups');
        expect(mail.text).toContain('Hello Ana,');
      }
    });
  });
});
