/**
 * Users, groups and memberships, planned in memory before anything is written. Group 0 is "Big
 * group". Everyone joined their groups in the weeks before the message history starts, so every
 * member could have received every notification of the two years that follow.
 */
import { Random } from './prng.ts';
import { DAY, HISTORY_START, type Scale } from './scale.ts';
import { groupName, personName, pickLang, type Lang } from './words.ts';

export interface UserPlan {
  index: number;
  id: string;
  login: string;
  name: string;
  /** The language this person writes in. */
  lang: Lang;
  apiKey: string;
  createdAt: number;
  /** Set once messages and bookmarks are planned: the time of their last write. */
  lastActivity: number;
  /** Group indexes in join order; the first is the default group. */
  groups: number[];
}

export interface GroupPlan {
  index: number;
  id: string;
  name: string;
  secretKey: string;
  createdAt: number;
  /** Set once messages are planned: the newest message's time. */
  lastActivity: number;
  /** User indexes in join order (the creator first). */
  members: number[];
  /** Join time of each member, same order as `members`. */
  joinedAt: number[];
  /** Messages of the group, replies included. */
  messages: number;
  /** Replies among them. */
  replies: number;
}

export interface PeoplePlan {
  users: UserPlan[];
  groups: GroupPlan[];
}

const MIN_GROUPS_PER_USER = 2;
const MAX_GROUPS_PER_USER = 8;
const MIN_GROUP_SIZE = 5;
const MAX_GROUP_SIZE = 60;
/** Fewest messages in a group: a quiet group still has a couple of posts. */
const MIN_GROUP_MESSAGES = 3;

/**
 * Splits `total` into integer parts proportional to `weights`, each at least `floor`, exactly
 * summing to `total` (largest remainders get the leftover units).
 */
function apportion(total: number, weights: number[], floor: number): number[] {
  const spare = total - floor * weights.length;
  if (spare < 0) throw new Error(`Cannot split ${total} into ${weights.length} parts of at least ${floor}`);
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (spare * w) / sum);
  const parts = exact.map((x) => floor + Math.floor(x));
  let left = total - parts.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left === 0) break;
    parts[i] = (parts[i] as number) + 1;
    left -= 1;
  }
  return parts;
}

/** Group sizes (besides the big group) between 5 and 60 that add up to exactly `total`. */
function groupSizes(rng: Random, count: number, total: number): number[] {
  if (total < count * MIN_GROUP_SIZE || total > count * MAX_GROUP_SIZE) {
    throw new Error(`${total} memberships cannot fill ${count} groups of ${MIN_GROUP_SIZE}–${MAX_GROUP_SIZE}`);
  }
  // Most groups are mid-sized or large families; some are small.
  const sizes = Array.from(
    { length: count },
    () => MIN_GROUP_SIZE + Math.floor((MAX_GROUP_SIZE - MIN_GROUP_SIZE + 1) * Math.pow(rng.next(), 0.6)),
  );
  let sum = sizes.reduce((a, b) => a + b, 0);
  while (sum !== total) {
    const i = rng.int(count);
    const size = sizes[i] as number;
    if (sum < total && size < MAX_GROUP_SIZE) {
      sizes[i] = size + 1;
      sum += 1;
    } else if (sum > total && size > MIN_GROUP_SIZE) {
      sizes[i] = size - 1;
      sum -= 1;
    }
  }
  return sizes;
}

/**
 * Deals users into groups: each user appears as many times as the groups they should join, the
 * list is shuffled and cut into groups of the planned sizes. A user dealt twice into one group is
 * swapped with someone later in the list (or, at the very end, with a member of another group).
 */
function dealMembers(rng: Random, stubs: number[], sizes: number[]): number[][] {
  rng.shuffle(stubs);
  const groups: number[][] = [];
  let at = 0;
  for (const size of sizes) {
    const members = new Set<number>();
    for (let k = 0; k < size; k += 1, at += 1) {
      let user = stubs[at] as number;
      if (members.has(user)) {
        let j = at + 1;
        while (j < stubs.length && members.has(stubs[j] as number)) j += 1;
        if (j < stubs.length) {
          stubs[at] = stubs[j] as number;
          stubs[j] = user;
          user = stubs[at] as number;
        } else {
          user = swapWithEarlierGroup(groups, members, user);
        }
      }
      members.add(user);
    }
    groups.push([...members]);
  }
  return groups;
}

/** Puts `user` into an earlier group that lacks them, taking from it a member `current` lacks. */
function swapWithEarlierGroup(groups: number[][], current: Set<number>, user: number): number {
  for (const other of groups) {
    if (other.includes(user)) continue;
    const k = other.findIndex((v) => !current.has(v));
    if (k < 0) continue;
    const taken = other[k] as number;
    other[k] = user;
    return taken;
  }
  throw new Error('Could not place a user in distinct groups');
}

/** Plans every user, group and membership of the data set. */
export function planPeople(seed: number, scale: Scale): PeoplePlan {
  const rng = new Random(seed, 'people');
  const ids = new Random(seed, 'people-ids');
  const keys = new Random(seed, 'api-keys');

  const users: UserPlan[] = [];
  for (let i = 0; i < scale.users; i += 1) {
    const lang = pickLang(rng);
    users.push({
      index: i,
      id: ids.uuid(),
      login: `user${i + 1}@bench.kith`,
      name: personName(rng, lang),
      lang,
      apiKey: keys.token(),
      createdAt: 0,
      lastActivity: 0,
      groups: [],
    });
  }

  // How many groups each user joins: 2 for many, up to 8 for a few.
  const degrees = users.map(
    () => MIN_GROUPS_PER_USER + Math.floor((MAX_GROUPS_PER_USER - MIN_GROUPS_PER_USER + 1) * Math.pow(rng.next(), 1.6)),
  );
  const bigMembers = rng.shuffle(users.map((u) => u.index)).slice(0, scale.bigGroupMembers);
  const stubs: number[] = [];
  const inBig = new Set(bigMembers);
  users.forEach((u, i) => {
    for (let k = inBig.has(i) ? 1 : 0; k < (degrees[i] as number); k += 1) stubs.push(u.index);
  });
  const sizes = groupSizes(rng, scale.groups - 1, stubs.length);
  const memberLists = [bigMembers, ...dealMembers(rng, stubs, sizes)];

  // Busy groups write more: the big group has its fixed count, the others share the rest by size
  // times a log-normal "chattiness".
  const activity = memberLists.slice(1).map((m) => m.length * Math.exp(rng.normal()));
  const otherMessages = apportion(scale.messages - scale.bigGroupMessages, activity, MIN_GROUP_MESSAGES);
  const messageCounts = [scale.bigGroupMessages, ...otherMessages];
  // One third of all messages are replies, spread in proportion; every group keeps at least one post.
  const replyCounts = apportion(Math.floor(scale.messages / 3), messageCounts, 0).map((r, g) =>
    Math.min(r, (messageCounts[g] as number) - 1),
  );
  fixReplyTotal(replyCounts, messageCounts, Math.floor(scale.messages / 3));

  const groups: GroupPlan[] = memberLists.map((members, g) => {
    const createdAt = HISTORY_START - 60 * DAY + rng.int(30 * DAY);
    // The creator joins when creating; the others over the next month.
    const joins = members.map((user, k) => ({
      user,
      at: k === 0 ? createdAt : createdAt + 60_000 + rng.int(30 * DAY),
    }));
    joins.sort((a, b) => a.at - b.at || a.user - b.user);
    return {
      index: g,
      id: ids.uuid(),
      name: g === 0 ? 'Big group' : groupName(rng),
      secretKey: ids.uuid(),
      createdAt,
      lastActivity: createdAt,
      members: joins.map((j) => j.user),
      joinedAt: joins.map((j) => j.at),
      messages: messageCounts[g] as number,
      replies: replyCounts[g] as number,
    };
  });

  // Accounts are made at the first join (signup with an invitation); that group becomes the default.
  const firstJoin = new Map<number, { group: number; at: number }[]>();
  for (const group of groups) {
    group.members.forEach((user, k) => {
      const list = firstJoin.get(user) ?? [];
      list.push({ group: group.index, at: group.joinedAt[k] as number });
      firstJoin.set(user, list);
    });
  }
  for (const user of users) {
    const joins = (firstJoin.get(user.index) ?? []).sort((a, b) => a.at - b.at || a.group - b.group);
    user.groups = joins.map((j) => j.group);
    user.createdAt = joins[0]?.at ?? HISTORY_START;
    user.lastActivity = user.createdAt;
  }
  return { users, groups };
}

/** Rounding may leave the reply total off by a few: move the difference onto the largest groups. */
function fixReplyTotal(replies: number[], messages: number[], total: number): void {
  let diff = total - replies.reduce((a, b) => a + b, 0);
  const order = messages.map((m, g) => ({ m, g })).sort((a, b) => b.m - a.m || a.g - b.g);
  for (let k = 0; diff !== 0; k = (k + 1) % order.length) {
    const g = (order[k] as { g: number }).g;
    const r = replies[g] as number;
    if (diff > 0 && r < (messages[g] as number) - 1) {
      replies[g] = r + 1;
      diff -= 1;
    } else if (diff < 0 && r > 0) {
      replies[g] = r - 1;
      diff += 1;
    }
  }
}
