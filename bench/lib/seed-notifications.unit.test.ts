import { describe, expect, it } from 'vitest';
import type { MessagePlan } from './plan-messages.ts';
import { newestByGroup, newestFor } from './seed-notifications.ts';

/** A plan of `messages` (group, author, time), in creation order; only the fields read here. */
function planOf(messages: [group: number, author: number, at: number][]): MessagePlan {
  return {
    count: messages.length,
    group: Int32Array.from(messages.map((m) => m[0])),
    author: Int32Array.from(messages.map((m) => m[1])),
    createdAt: Float64Array.from(messages.map((m) => m[2])),
    order: Int32Array.from(messages.keys()),
  } as MessagePlan;
}

describe('the events a member receives', () => {
  // Group 0: messages 0, 2, 3, 5; group 1: messages 1, 4. Message 3 and 4 share a time.
  const plan = planOf([
    [0, 1, 10],
    [1, 2, 20],
    [0, 2, 30],
    [0, 0, 40],
    [1, 1, 40],
    [0, 2, 50],
  ]);

  it('lists each group newest first, as far back as the window', () => {
    expect(newestByGroup(plan, 2, 0)).toEqual([
      [5, 3, 2, 0],
      [4, 1],
    ]);
    expect(newestByGroup(plan, 2, 30)).toEqual([[5, 3, 2], [4]]);
  });

  it('merges the groups newest first (ties by index), without their own messages nor those before they joined', () => {
    const lists = newestByGroup(plan, 2, 0);
    // User 0 wrote message 3; joined group 0 at the start and group 1 at 25.
    expect(newestFor(0, lists, [0, 25], plan, 10)).toEqual([5, 4, 2, 0]);
    expect(newestFor(0, lists, [0, 25], plan, 2)).toEqual([5, 4]);
    // Joined group 0 at 30: message 0 never reached them.
    expect(newestFor(1, lists, [30, 0], plan, 10)).toEqual([5, 3, 2, 1]);
  });
});
