/**
 * Notifications as the server creates them for new posts and replies (docs/api §10.1, §2.7;
 * src/features/messages/service.ts `announceNewMessage`): one per other member of the group, at the
 * message's time. Only the last 30 days of the history keep theirs, at most 150 per user (the
 * newest), as on an instance where people clear old ones. One chosen big-group member keeps theirs
 * further back, so the runner always has a user with 100+ notifications, even at small scale.
 */
import type { NotificationsTable } from '../../server/dist/db/schema.js';
import type { SeedDb } from './db.ts';
import type { MessagePlan } from './plan-messages.ts';
import type { PeoplePlan } from './plan-people.ts';
import { Random } from './prng.ts';
import { DATA_NOW, NOTIFICATION_CAP, NOTIFICATION_USER_MIN, NOTIFICATION_WINDOW_MS } from './scale.ts';

/** Rows per transaction. */
const BATCH = 20_000;

/** Message indexes of each group, newest first, as far back as `since`. */
function newestByGroup(plan: MessagePlan, groups: number, since: number, only?: Set<number>): number[][] {
  const lists: number[][] = Array.from({ length: groups }, () => []);
  for (let k = plan.count - 1; k >= 0; k -= 1) {
    const i = plan.order[k] as number;
    if ((plan.createdAt[i] as number) < since) break;
    const g = plan.group[i] as number;
    if (only === undefined || only.has(g)) lists[g]?.push(i);
  }
  return lists;
}

/** The newest `cap` messages of these lists (each newest first) not written by `user`. */
function newestFor(user: number, lists: number[][], plan: MessagePlan, cap: number): number[] {
  const heads = lists.map(() => 0);
  const out: number[] = [];
  while (out.length < cap) {
    let best = -1;
    let bestList = -1;
    lists.forEach((list, l) => {
      const i = list[heads[l] as number];
      if (i === undefined) return;
      // Creation order is (time, index); the newest is the largest in it.
      if (
        best < 0 ||
        (plan.createdAt[i] as number) > (plan.createdAt[best] as number) ||
        ((plan.createdAt[i] as number) === (plan.createdAt[best] as number) && i > best)
      ) {
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

/**
 * Writes the notifications; `threadTitles` are the titles by post index. Returns how many each
 * user got.
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
  const chosen = people.users[notificationsUser];
  if (chosen === undefined) throw new Error('Unknown notifications user');
  const chosenGroups = newestByGroup(plan, people.groups.length, -Infinity, new Set(chosen.groups));

  // Compact entries: recipient, message, read flag.
  const recipients: number[] = [];
  const messages: number[] = [];
  const reads: number[] = [];
  const perUser = new Int32Array(people.users.length);
  for (const user of people.users) {
    const source = user.index === notificationsUser ? chosenGroups : recent;
    const kept = newestFor(
      user.index,
      user.groups.map((g) => source[g] ?? []),
      plan,
      NOTIFICATION_CAP,
    );
    // People read their notifications now and then: the oldest ~80 % are read, the newest not yet.
    const unread = Math.round(kept.length * (0.05 + 0.3 * rng.next()));
    kept.forEach((m, k) => {
      recipients.push(user.index);
      messages.push(m);
      reads.push(k < unread ? 0 : 1);
    });
    perUser[user.index] = kept.length;
  }
  if ((perUser[notificationsUser] as number) < NOTIFICATION_USER_MIN) {
    throw new Error(`The notifications user has only ${perUser[notificationsUser]} notifications`);
  }

  // Written in creation order, as the server would have.
  const order = Int32Array.from({ length: recipients.length }, (_, k) => k).sort(
    (a, b) =>
      (plan.createdAt[messages[a] as number] as number) - (plan.createdAt[messages[b] as number] as number) ||
      (messages[a] as number) - (messages[b] as number) ||
      (recipients[a] as number) - (recipients[b] as number),
  );
  for (let from = 0; from < order.length; from += BATCH) {
    const rows: NotificationsTable[] = [];
    for (let k = from; k < Math.min(from + BATCH, order.length); k += 1) {
      const e = order[k] as number;
      const m = messages[e] as number;
      const parent = plan.parent[m] as number;
      rows.push({
        id: ids.orderedUuid(plan.createdAt[m] as number),
        user_id: (people.users[recipients[e] as number] as { id: string }).id,
        type: parent < 0 ? 'new_message' : 'new_comment',
        created_at: plan.createdAt[m] as number,
        read: reads[e] as number,
        // new_message: the post; new_comment: the reply, from the parent (docs/api §2.7).
        target: plan.ids[m] as string,
        data: '{}',
        from_user_id: (people.users[plan.author[m] as number] as { id: string }).id,
        from_group_id: (people.groups[plan.group[m] as number] as { id: string }).id,
        from_message_id: plan.ids[parent < 0 ? m : parent] as string,
        title: threadTitles.get(plan.root[m] as number) ?? '',
        emailed_at: null,
      });
    }
    await seedDb.transaction((tx) => seedDb.insert(tx, 'notifications', rows));
  }
  return { total: order.length, perUser };
}
