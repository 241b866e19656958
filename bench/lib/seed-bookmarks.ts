/**
 * Bookmarks (docs/api §9): about two per user on average, skewed as real use is: most people keep
 * none to three, about one in a hundred collects fifty or more, and the chosen bookmarks user of the
 * big group always has at least fifty. Each bookmark is of a message of one of the user's groups,
 * made some time after it was posted.
 */
import type { BookmarksTable } from '../../server/dist/db/schema.js';
import type { SeedDb } from './db.ts';
import type { MessagePlan } from './plan-messages.ts';
import type { PeoplePlan } from './plan-people.ts';
import { Random } from './prng.ts';
import { BOOKMARK_USER_MIN, DATA_NOW, DAY } from './scale.ts';

export interface BookmarkPlan {
  rows: BookmarksTable[];
  perUser: Int32Array;
}

/** Share of users who collect bookmarks, and how many they keep. */
const COLLECTOR_SHARE = 0.01;
const COLLECTOR_MIN = 50;
const COLLECTOR_MAX = 120;
/** Everyone else: a geometric count (mean ≈ 1.2). */
const CASUAL_STOP = 0.45;
/** Most bookmarks are of posts; some of replies (a recipe in a comment). */
const POST_SHARE = 0.8;

function bookmarkCount(rng: Random): number {
  if (rng.chance(COLLECTOR_SHARE)) return rng.between(COLLECTOR_MIN, COLLECTOR_MAX);
  let n = 0;
  while (!rng.chance(CASUAL_STOP)) n += 1;
  return n;
}

/**
 * Plans every bookmark, ordered by creation time, and moves each user's last activity to their
 * last bookmark (bookmarking is a write, docs/api §1.11).
 */
export function planBookmarks(
  seed: number,
  people: PeoplePlan,
  plan: MessagePlan,
  bookmarksUser: number,
): BookmarkPlan {
  const rng = new Random(seed, 'bookmarks');
  const ids = new Random(seed, 'bookmark-ids');
  const entries: { user: number; message: number; at: number }[] = [];
  const perUser = new Int32Array(people.users.length);
  for (const user of people.users) {
    const wanted = user.index === bookmarksUser ? BOOKMARK_USER_MIN + 10 : bookmarkCount(rng);
    const taken = new Set<number>();
    for (let tries = 0; taken.size < wanted && tries < wanted * 20; tries += 1) {
      const g = rng.pick(user.groups);
      const start = plan.groupStart[g] as number;
      const group = people.groups[g];
      if (group === undefined) continue;
      const m = rng.chance(POST_SHARE)
        ? start + rng.int(plan.groupPosts[g] as number)
        : start + rng.int(group.messages);
      if (taken.has(m)) continue;
      taken.add(m);
      const posted = plan.createdAt[m] as number;
      const room = DATA_NOW - 1 - posted;
      let delay = rng.exponential(3 * DAY);
      if (delay >= room) delay = rng.next() * room;
      const at = posted + Math.max(0, Math.floor(delay));
      entries.push({ user: user.index, message: m, at });
      if (user.lastActivity < at) user.lastActivity = at;
    }
    perUser[user.index] = taken.size;
  }
  entries.sort((a, b) => a.at - b.at || a.user - b.user || a.message - b.message);
  const rows = entries.map((e) => ({
    id: ids.uuid(),
    user_id: (people.users[e.user] as { id: string }).id,
    message_id: plan.ids[e.message] as string,
    created_at: e.at,
  }));
  return { rows, perUser };
}

/** Writes the planned bookmarks. */
export async function writeBookmarks(seedDb: SeedDb, bookmarks: BookmarkPlan): Promise<void> {
  await seedDb.transaction((tx) => seedDb.insert(tx, 'bookmarks', bookmarks.rows));
}
