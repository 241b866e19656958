/**
 * The shape of the message history, planned in memory: who wrote what where and when, which
 * message replies to which, and the activity dates that follow (docs/api §10.2). Texts come later,
 * while writing (seed-messages.ts), so this plan stays small: typed arrays, one slot per message.
 *
 * Each group's messages take a contiguous range of indexes, its posts first, then its replies.
 */
import type { PeoplePlan } from './plan-people.ts';
import { Random, WeightedPicker } from './prng.ts';
import { DATA_NOW, DAY, HISTORY_MS, HISTORY_START, THREAD_COMMENTS, type Scale } from './scale.ts';

export interface MessagePlan {
  count: number;
  ids: string[];
  group: Int32Array;
  /** User index of the author. */
  author: Int32Array;
  /** Index of the parent, -1 for a post. */
  parent: Int32Array;
  /** Index of the thread's post (itself for a post). */
  root: Int32Array;
  /** 0 for a post, 1 for a direct reply, up to MAX_DEPTH. */
  depth: Uint8Array;
  createdAt: Float64Array;
  /** lastActivityDate: the newest creation time of the message and everything below it. */
  activity: Float64Array;
  /** First index of each group's range, and how many posts open it. */
  groupStart: Int32Array;
  groupPosts: Int32Array;
  /** Every index in creation order (ties by index): the order the server would have written them. */
  order: Int32Array;
  /** The big-group post with exactly THREAD_COMMENTS direct replies and nothing deeper. */
  threadPost: number;
  /** The big-group post shared by public link. */
  publicPost: number;
  publicToken: string;
  /** Big-group posts that each carry one uploaded image. */
  imagePosts: number[];
}

/** Replies nest at most this deep (a reply to a reply to a reply to a reply). */
const MAX_DEPTH = 4;
/** Share of replies that answer the post itself rather than another reply. */
const DIRECT_REPLY_SHARE = 0.7;
/** Typical delay between a message and a reply to it. */
const REPLY_DELAY_MEAN = 8 * 60 * 60 * 1000;
/** No post in the last minutes before "now", so replies to any post fit before it. */
const QUIET_END = 10 * 60 * 1000;

/** Plans the structure and times of every message. */
export function planMessages(seed: number, scale: Scale, people: PeoplePlan): MessagePlan {
  const rng = new Random(seed, 'message-structure');
  const idRng = new Random(seed, 'message-ids');
  const n = scale.messages;
  const plan: MessagePlan = {
    count: n,
    ids: Array.from({ length: n }, () => idRng.uuid()),
    group: new Int32Array(n),
    author: new Int32Array(n),
    parent: new Int32Array(n).fill(-1),
    root: new Int32Array(n),
    depth: new Uint8Array(n),
    createdAt: new Float64Array(n),
    activity: new Float64Array(n),
    groupStart: new Int32Array(people.groups.length),
    groupPosts: new Int32Array(people.groups.length),
    order: new Int32Array(n),
    threadPost: -1,
    publicPost: -1,
    publicToken: new Random(seed, 'public-link').token(),
    imagePosts: [],
  };

  let next = 0;
  for (const group of people.groups) {
    const start = next;
    const posts = group.messages - group.replies;
    plan.groupStart[group.index] = start;
    plan.groupPosts[group.index] = posts;
    // A few members write most of the messages; which ones is random.
    const ranks = rng.shuffle(group.members.map((_, k) => k));
    const talk = new WeightedPicker(ranks.map((r) => 1 / Math.pow(r + 1, 0.9)));
    const author = () => group.members[talk.pick(rng)] as number;

    for (let p = 0; p < posts; p += 1) {
      const i = next++;
      plan.group[i] = group.index;
      plan.author[i] = author();
      plan.root[i] = i;
      plan.createdAt[i] = HISTORY_START + Math.floor(rng.next() * (HISTORY_MS - QUIET_END));
    }

    // Replies go to threads by popularity (log-normal): most threads get a few, some get many.
    let special = -1;
    let replies = group.replies;
    if (group.index === 0) {
      special = pickThreadPost(rng, plan, start, posts);
      plan.threadPost = special;
      replies -= THREAD_COMMENTS;
    }
    const popularity = Array.from({ length: posts }, (_, p) =>
      start + p === special ? 0 : Math.exp(1.2 * rng.normal()),
    );
    const threads = new WeightedPicker(popularity);
    const perThread = new Int32Array(posts);
    for (let r = 0; r < replies; r += 1) {
      const thread = threads.pick(rng);
      perThread[thread] = (perThread[thread] as number) + 1;
    }
    if (special >= 0) perThread[special - start] = THREAD_COMMENTS;

    for (let p = 0; p < posts; p += 1) {
      const post = start + p;
      // Messages of this thread that may still be answered (not at the deepest level).
      const open: number[] = [post];
      for (let r = 0; r < (perThread[p] as number); r += 1) {
        let parent = post;
        if (post !== special && open.length > 1 && !rng.chance(DIRECT_REPLY_SHARE)) {
          parent = open[1 + rng.int(open.length - 1)] as number;
        }
        // The last moment before "now" is left free, so a reply always comes strictly after its parent.
        if (DATA_NOW - 1 - (plan.createdAt[parent] as number) < 2) parent = post;
        const i = next++;
        plan.group[i] = group.index;
        plan.author[i] = author();
        plan.parent[i] = parent;
        plan.root[i] = post;
        const depth = (plan.depth[parent] as number) + 1;
        plan.depth[i] = depth;
        plan.createdAt[i] = replyTime(rng, plan.createdAt[parent] as number);
        if (depth < MAX_DEPTH) open.push(i);
      }
    }
    if (next !== start + group.messages) throw new Error(`Group ${group.index}: planned ${next - start} messages`);
  }

  computeActivity(plan, people);
  plan.order = creationOrder(plan);
  chooseBigGroupPosts(rng, plan, scale);
  return plan;
}

/** A post old enough for its 20 replies to fit in the history before "now". */
function pickThreadPost(rng: Random, plan: MessagePlan, start: number, posts: number): number {
  for (let tries = 0; tries < 1000; tries += 1) {
    const i = start + rng.int(posts);
    if ((plan.createdAt[i] as number) < DATA_NOW - 60 * DAY) return i;
  }
  return start;
}

/** A reply's time: after its parent by an exponential delay, always before "now". */
function replyTime(rng: Random, parentAt: number): number {
  const room = DATA_NOW - 1 - parentAt;
  let delay = rng.exponential(REPLY_DELAY_MEAN);
  if (delay >= room) delay = rng.next() * room;
  return parentAt + Math.max(1, Math.min(room, Math.floor(delay)));
}

/**
 * Activity dates as the server leaves them (docs/api §10.2): a reply moves every ancestor up to its
 * own time; the group moves with every message; a user's last activity is their last write.
 */
function computeActivity(plan: MessagePlan, people: PeoplePlan): void {
  plan.activity.set(plan.createdAt);
  for (let i = 0; i < plan.count; i += 1) {
    const at = plan.createdAt[i] as number;
    for (let a = plan.parent[i] as number; a >= 0; a = plan.parent[a] as number) {
      if ((plan.activity[a] as number) < at) plan.activity[a] = at;
    }
    const group = people.groups[plan.group[i] as number];
    if (group !== undefined && group.lastActivity < at) group.lastActivity = at;
    const user = people.users[plan.author[i] as number];
    if (user !== undefined && user.lastActivity < at) user.lastActivity = at;
  }
}

function creationOrder(plan: MessagePlan): Int32Array {
  const order = Int32Array.from({ length: plan.count }, (_, i) => i);
  const at = plan.createdAt;
  return order.sort((a, b) => (at[a] as number) - (at[b] as number) || a - b);
}

/** The big group's image posts and its publicly shared post. */
function chooseBigGroupPosts(rng: Random, plan: MessagePlan, scale: Scale): void {
  const start = plan.groupStart[0] as number;
  const posts = plan.groupPosts[0] as number;
  const candidates = Array.from({ length: posts }, (_, p) => start + p).filter((i) => i !== plan.threadPost);
  rng.shuffle(candidates);
  plan.imagePosts = candidates.slice(0, scale.images).sort((a, b) => a - b);
  plan.publicPost = candidates[scale.images] ?? start;
}
