import { describe, expect, it } from 'vitest';
import { inQuietHours, isValidTimeZone, minuteOfDay, parseQuietHours, pushAdmits, pushChoiceOf } from './policy.js';

describe('push policy', () => {
  it('reads a stored choice, defaulting to all', () => {
    expect(pushChoiceOf(null)).toBe('all');
    expect(pushChoiceOf('none')).toBe('none');
    expect(pushChoiceOf('mentions_replies')).toBe('mentions_replies');
    expect(pushChoiceOf('bogus')).toBe('all');
  });

  it('lets every listed type and mentions through on all, and nothing on none', () => {
    for (const type of ['new_message', 'new_comment', 'user_joined_group', 'new_reaction', 'mention']) {
      expect(pushAdmits('all', { type, replyToRecipient: false }), type).toBe(true);
      expect(pushAdmits('none', { type, replyToRecipient: true }), type).toBe(false);
    }
    expect(pushAdmits('all', { type: 'unknown_type', replyToRecipient: false })).toBe(false);
  });

  it('lets only mentions and replies to the recipient through on mentions_replies', () => {
    expect(pushAdmits('mentions_replies', { type: 'mention', replyToRecipient: false })).toBe(true);
    expect(pushAdmits('mentions_replies', { type: 'new_comment', replyToRecipient: true })).toBe(true);
    expect(pushAdmits('mentions_replies', { type: 'new_comment', replyToRecipient: false })).toBe(false);
    expect(pushAdmits('mentions_replies', { type: 'new_message', replyToRecipient: false })).toBe(false);
    expect(pushAdmits('mentions_replies', { type: 'new_reaction', replyToRecipient: true })).toBe(false);
  });

  it('parses quiet hours and refuses malformed ones', () => {
    expect(parseQuietHours('')).toBeNull();
    expect(parseQuietHours('22:00-07:30')).toEqual({ start: 22 * 60, end: 7 * 60 + 30 });
    expect(parseQuietHours('00:00-23:59')).toEqual({ start: 0, end: 23 * 60 + 59 });
    for (const bad of [
      '22-07',
      '24:00-07:00',
      '22:00-07:60',
      '7:00-8:00',
      '22:00-22:00',
      '22:00',
      '22:00-07:00-08:00',
      ' 22:00-07:00',
    ]) {
      expect(parseQuietHours(bad), bad).toBe('invalid');
    }
  });

  it('knows IANA time zones', () => {
    expect(isValidTimeZone('Europe/Paris')).toBe(true);
    expect(isValidTimeZone('Asia/Seoul')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });

  it('places a moment in quiet hours in the user’s time zone, across midnight', () => {
    const at = Date.parse('2026-06-03T21:30:00Z'); // 23:30 in Paris (summer), 06:30 next day in Seoul
    expect(minuteOfDay(at, 'Europe/Paris')).toBe(23 * 60 + 30);
    expect(minuteOfDay(at, 'Asia/Seoul')).toBe(6 * 60 + 30);
    const night = { start: 22 * 60, end: 7 * 60 };
    expect(inQuietHours(night, at, 'Europe/Paris')).toBe(true);
    expect(inQuietHours(night, at, 'Asia/Seoul')).toBe(true);
    expect(inQuietHours(night, at, 'UTC')).toBe(false);
    const afternoon = { start: 13 * 60, end: 15 * 60 };
    expect(inQuietHours(afternoon, Date.parse('2026-06-03T13:00:00Z'), 'UTC')).toBe(true);
    expect(inQuietHours(afternoon, Date.parse('2026-06-03T15:00:00Z'), 'UTC')).toBe(false);
    expect(inQuietHours(null, at, 'UTC')).toBe(false);
  });
});
