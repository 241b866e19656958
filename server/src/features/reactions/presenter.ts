import type { LiveEventData } from '@kith/common';
import type { MessageRow } from '../../db/rows.js';
import type { ReactionView } from '../messages/queries.js';

/**
 * The `reactions` live event (issue 20): the same for every member, so each user entry carries its
 * reaction id and each client finds its own `mine` and `reactionId` by its user id.
 */
export function presentReactionsEvent(
  message: Pick<MessageRow, 'id' | 'group_id' | 'root_id'>,
  rows: readonly ReactionView[],
): LiveEventData<'reactions'> {
  const byEmoji = new Map<string, LiveEventData<'reactions'>['reactions'][number]>();
  for (const r of rows) {
    let entry = byEmoji.get(r.emoji);
    if (entry === undefined) {
      entry = { emoji: r.emoji, count: 0, users: [] };
      byEmoji.set(r.emoji, entry);
    }
    entry.count += 1;
    entry.users.push({ id: r.user_id, name: r.user_name, reactionId: r.id });
  }
  return {
    messageId: message.id,
    groupId: message.group_id,
    rootId: message.root_id,
    reactions: [...byEmoji.values()],
  };
}
