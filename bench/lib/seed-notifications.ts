/**
 * Notifications as the server stores them for new posts and replies (docs/api §10.1, §2.7;
 * features/notifications/service.ts `notifyGroupMembers`, migration 0024): one `notification_events`
 * row per message, which reaches the members of its group who joined at or before it, but its
 * author. Only the last year of the history keeps its events, as after the server's housekeeping.
 * The generator makes no mentions, so no event excludes anybody and no `deleted` state is written.
 *
 * Read marks: people read their notifications now and then. Of a member's newest
 * `NOTIFICATION_CAP`, the newest 5 to 35 % are unread, everything older is read: their "mark all
 * read" watermark (`users.notifications_read_until`) sits just below the unread ones, so no
 * per-member state row is needed, as on a server where people use "mark all read".
 */
import type { NotificationEventsTable } from '../../server/dist/db/schema.js';
import { sql } from 'kysely';
import type { SeedDb } from './db.ts';
import type { MessagePlan } from './plan-messages.ts';
import type { PeoplePlan } from './plan-people.ts';
import { Random } from './prng.ts';
import { DATA_NOW, NOTIFICATION_CAP, NOTIFICATION_USER_MIN, NOTIFICATION_WINDOW_MS } from './scale.ts';

/** Rows per transaction. */
const BATCH = 20_000;
/** Users per watermark statement (two parameters each, under SQLite's and PostgreSQL's limits). */
const WATERMARK_CHUNK = 5_000;

/** Message indexes of each group, newest first, as far back as `since`. */
export function newestByGroup(plan: MessagePlan, groups: number, since: number): number[][] {
  const lists: number[][] = Array.from({ length: groups }, () => []);
  for (let k = plan.count - 1; k >= 0; k -= 1) {
    const i = plan.order[k] as number;
    if ((plan.createdAt[i] as number) < since) break;
    lists[plan.group[i] as number]?.push(i);
  }
  return lists;
}

/** Is message `a` newer than `b`? Creation order is (time, index). */
function newer(plan: MessagePlan, a: number, b: number): boolean {
  const ta = plan.createdAt[a] as number;
  const tb = plan.createdAt[b] as number;
  return ta > tb || (ta === tb && a > b);
}

/**
 * The events `user` receives, newest first, at most `cap`: from `lists` (each newest first, one
 * per group of the user), those at or after the user's join time `since[l]` and not theirs.
 */
export function newestFor(user: number, lists: number[][], since: number[], plan: MessagePlan, cap: number): number[] {
  const heads = lists.map(() => 0);
  const out: number[] = [];
  while (out.length < cap) {
    let best = -1;
    let bestList = -1;
    lists.forEach((list, l) => {
      const i = list[heads[l] as number];
      if (i === undefined || (plan.createdAt[i] as number) < (since[l] as number)) return;
      if (best < 0 || newer(plan, i, best)) {
        best = i;
        bestList = l;
      }
    });
    if (best < 0) break;
    heads[bestList] = (heads[bestList] as number) + 1;
    if ((plan.author[best] as number) !== user) out.push(best);
  }
  return out;
}

/** How many of `list` (newest first) were made at or after `since`. */
function countSince(list: number[], plan: MessagePlan, since: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((plan.createdAt[list[mid] as number] as number) >= since) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Writes the events and the read watermarks; `threadTitles` are the titles by post index. Returns
 * how many events were written and how many notifications each user receives.
 */
export async function writeNotifications(
  seedDb: SeedDb,
  seed: number,
  people: PeoplePlan,
  plan: MessagePlan,
  threadTitles: Map<number, string>,
  notificationsUser: number,
): Promise<{ total: number; perUser: Int32Array }> {
  const rng = new Random(seed, 'notifications');
  const ids = new Random(seed, 'notification-ids');
  const recent = newestByGroup(plan, people.groups.length, DATA_NOW - NOTIFICATION_WINDOW_MS);

  // Join time of each membership, by user then group.
  const joined = people.users.map(() => new Map<number, number>());
  for (const group of people.groups) {
    group.members.forEach((user, k) => joined[user]?.set(group.index, group.joinedAt[k] as number));
  }

  const perUser = new Int32Array(people.users.length);
  const watermarks: { id: string; until: number }[] = [];
  for (const user of people.users) {
    const since = user.groups.map((g) => joined[user.index]?.get(g) ?? Infinity);
    const lists = user.groups.map((g) => recent[g] ?? []);
    // Everything the user receives: their groups' events since they joined, less their own messages
    // (a member's own messages are all after their join).
    let count = 0;
    lists.forEach((list, l) => {
      count += countSince(list, plan, since[l] as number);
      for (const i of list) if ((plan.author[i] as number) === user.index) count -= 1;
    });
    perUser[user.index] = count;
    const newest = newestFor(user.index, lists, since, plan, NOTIFICATION_CAP);
    const unread = Math.round(newest.length * (0.05 + 0.3 * rng.next()));
    // Read up to the newest read one; with nothing to read, no watermark (the column stays null).
    const lastRead = newest[unread];
    if (lastRead !== undefined) watermarks.push({ id: user.id, until: plan.createdAt[lastRead] as number });
  }
  if ((perUser[notificationsUser] as number) < NOTIFICATION_USER_MIN) {
    throw new Error(`The notifications user has only ${perUser[notificationsUser]} notifications`);
  }

  // Written in creation order, as the server would have.
  const events = recent.flat().sort((a, b) => (newer(plan, a, b) ? 1 : -1));
  for (let from = 0; from < events.length; from += BATCH) {
    const rows: NotificationEventsTable[] = [];
    for (const m of events.slice(from, from + BATCH)) {
      const parent = plan.parent[m] as number;
      const author = (people.users[plan.author[m] as number] as { id: string }).id;
      const group = (people.groups[plan.group[m] as number] as { id: string }).id;
      rows.push({
        id: ids.orderedUuid(plan.createdAt[m] as number),
        group_id: group,
        actor_id: author,
        type: parent < 0 ? 'new_message' : 'new_comment',
        created_at: plan.createdAt[m] as number,
        // new_message: the post; new_comment: the reply, from the parent (docs/api §2.7).
        target: plan.ids[m] as string,
        data: '{}',
        from_user_id: author,
        from_group_id: group,
        from_message_id: plan.ids[parent < 0 ? m : parent] as string,
        title: threadTitles.get(plan.root[m] as number) ?? '',
      });
    }
    await seedDb.transaction((tx) => seedDb.insert(tx, 'notification_events', rows));
  }

  // One statement per chunk of users, on both engines (WITH … VALUES, UPDATE … FROM).
  for (let from = 0; from < watermarks.length; from += WATERMARK_CHUNK) {
    const values = watermarks
      .slice(from, from + WATERMARK_CHUNK)
      .map((w) => sql`(${w.id}, cast(${w.until} as bigint))`);
    await seedDb.transaction(async (tx) => {
      await sql`with w (id, read_until) as (values ${sql.join(values)})
        update users set notifications_read_until = w.read_until from w where users.id = w.id`.execute(tx);
    });
  }
  return { total: events.length, perUser };
}
