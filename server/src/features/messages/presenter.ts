import type { FeedItem, FileObject, Mention, Message, MessagePreview, ReactionSummary } from '@kith/common';
import { toSeconds } from '../../lib/clock.js';
import { presentGroupRef } from '../groups/presenter.js';
import { presentUser } from '../users/presenter.js';
import type { MessageRow, UserRow } from '../../db/rows.js';
import { messageAbilities } from './policy.js';
import { lineageOf, type MessageView, type ReactionView } from './queries.js';

/** `data` with only the keys that were set; `{}` on a placeholder (docs/api §2.4). */
export function presentData(m: Pick<MessageRow, 'title' | 'text' | 'no_embed' | 'is_deleted'>): Message['data'] {
  const data: Message['data'] = {};
  if (m.is_deleted === 1) return data;
  if (m.title !== null) data.title = m.title;
  if (m.text !== null) data.text = m.text;
  if (m.no_embed !== null) data.no_embed = m.no_embed === 1;
  return data;
}

function presentAuthor(m: MessageView) {
  return m.author_id !== null && m.author_name !== null
    ? presentUser({ id: m.author_id, name: m.author_name, avatar_id: m.author_avatar_id })
    : null;
}

/**
 * What a message and its card share (docs/api §2.4, §2.5). `preview` is the file at position 0,
 * else the preview image of the first URL's link (§10.6). Placeholders have none.
 */
function presentCommon(m: MessageView, preview: FileObject | null, reactions: ReactionSummary[], mentions: Mention[]) {
  return {
    id: m.id,
    entityType: 'message' as const,
    type: 'standard' as const,
    createdAt: toSeconds(m.created_at),
    lastActivityDate: toSeconds(m.last_activity_date),
    data: presentData(m),
    author: presentAuthor(m),
    group: presentGroupRef({ id: m.group_id, name: m.group_name }),
    preview: m.is_deleted === 1 ? null : preview,
    isInFront: m.is_in_front === 1,
    isDeleted: m.is_deleted === 1,
    pinnedInGroup: m.pin_order !== null,
    // Only on a pinned message, as Zusam 0.6.1 shows it (its client reads "pinned" from its presence).
    ...(m.pin_order === null ? {} : { sortOrder: m.pin_order }),
    reactions: m.is_deleted === 1 ? [] : reactions,
    mentions: m.is_deleted === 1 ? [] : mentions,
  };
}

/**
 * A message's reactions by emoji, in the order each was first used (issue 20), as `viewerId` sees
 * them: `mine` and the `reactionId` to take it back. `users: false` leaves out who reacted (the
 * public view shows no member's name).
 */
export function presentReactions(
  rows: readonly ReactionView[],
  viewerId: string | null,
  options: { users: boolean } = { users: true },
): ReactionSummary[] {
  const byEmoji = new Map<string, ReactionSummary>();
  for (const r of rows) {
    let summary = byEmoji.get(r.emoji);
    if (summary === undefined) {
      summary = { emoji: r.emoji, count: 0, mine: false, reactionId: null, users: [] };
      byEmoji.set(r.emoji, summary);
    }
    summary.count += 1;
    if (options.users) summary.users.push({ id: r.user_id, name: r.user_name });
    if (viewerId !== null && r.user_id === viewerId) {
      summary.mine = true;
      summary.reactionId = r.id;
    }
  }
  return [...byEmoji.values()];
}

/**
 * The full message (docs/api §2.4) as `viewer` sees it: `can` says what they may do with it
 * (messages/policy.ts; `null` is a public-link visitor). A stored link is not "active" while the
 * operator has public links turned off (§6.6).
 */
export function presentMessage(
  m: MessageView,
  children: string[],
  files: FileObject[],
  options: {
    publicLinks: boolean;
    linkPreview?: FileObject | null;
    viewer: Pick<UserRow, 'id'> | null;
    reactions: ReactionSummary[];
    mentions: Mention[];
  },
): Message {
  const shown = m.is_deleted === 1 ? [] : files;
  return {
    ...presentCommon(m, shown[0] ?? options.linkPreview ?? null, options.reactions, options.mentions),
    parent: m.parent_id === null ? null : { id: m.parent_id, entityType: 'message' },
    lineage: lineageOf(m),
    children: children.map((id) => ({ id, entityType: 'message' as const })),
    files: shown,
    isPublic: options.publicLinks && m.public_token !== null,
    can: messageAbilities(options.viewer, m),
  };
}

/** A card (docs/api §2.5): `children` is a count. */
export function presentPreview(
  m: MessageView,
  childCount: number,
  preview: FileObject | null,
  reactions: ReactionSummary[],
  mentions: Mention[],
): MessagePreview {
  return { ...presentCommon(m, preview, reactions, mentions), children: childCount };
}

/** Feed cards cut their text to this many characters (docs/api §11.1). */
export const FEED_TEXT_LIMIT = 1000;

/** A card of the batched feed, with its text cut and the "something new" mark (docs/api §11.1). */
export function presentFeedItem(
  m: MessageView,
  childCount: number,
  unread: boolean,
  preview: FileObject | null,
  reactions: ReactionSummary[],
  mentions: Mention[],
): FeedItem {
  const card = presentPreview(m, childCount, preview, reactions, mentions);
  const text = card.data.text;
  const truncated = text !== undefined && text.length > FEED_TEXT_LIMIT;
  if (truncated) card.data = { ...card.data, text: text.slice(0, FEED_TEXT_LIMIT) };
  return { ...card, truncated, unread };
}

/**
 * The public view (docs/api §6.7): no author, group, parent, lineage, children, pin or mentions (no
 * member's current name reaches a visitor; the text shows what was written); nothing it may do.
 */
export function presentPublicMessage(
  m: MessageView,
  files: FileObject[],
  linkPreview: FileObject | null,
  reactions: ReactionSummary[],
): Message {
  // A pin belongs to the group's page, which the visitor does not see.
  const { sortOrder: _sortOrder, ...message } = presentMessage(m, [], files, {
    publicLinks: true,
    linkPreview,
    viewer: null,
    reactions,
    mentions: [],
  });
  return {
    ...message,
    pinnedInGroup: false,
    author: null,
    group: null,
    parent: null,
    lineage: [],
    isPublic: true,
  };
}
