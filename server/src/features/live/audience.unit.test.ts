import { describe, expect, it } from 'vitest';
import { audienceOf } from './audience.js';

describe('who may receive a live event', () => {
  it('gives notifications and file changes to their owner alone', () => {
    expect(audienceOf({ type: 'notification', userId: 'u1', notificationId: 'n' })).toEqual({ userId: 'u1' });
    expect(audienceOf({ type: 'file', userId: 'u2', fileId: 'f' })).toEqual({ userId: 'u2' });
  });

  it("gives posts, replies and pins to their group's members", () => {
    expect(audienceOf({ type: 'message', groupId: 'g1', messageId: 'm' })).toEqual({ groupId: 'g1' });
    expect(audienceOf({ type: 'pin', groupId: 'g3', messageId: 'm' })).toEqual({ groupId: 'g3' });
    expect(audienceOf({ type: 'comment', groupId: 'g2', messageId: 'm' })).toEqual({ groupId: 'g2' });
  });

  it('sends a disconnect to nobody (it ends streams instead)', () => {
    expect(audienceOf({ type: 'disconnect', userId: 'u1' })).toBeNull();
  });
});
