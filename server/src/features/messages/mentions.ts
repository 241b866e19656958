import { LIMITS, hasMention, mentionOffsets, type Mention } from '@kith/common';
import type { Body } from '../../lib/body.js';
import { invalidField } from '../../lib/errors.js';
import { parseId } from '../../lib/ids.js';
import type { Tx } from '../../db/transaction.js';
import { membersNamed, mentionViewsOf, type MentionView } from './queries.js';

// @mentions (issue 21, docs/api §11.10, docs/decisions.md "Mentions"): the text stays as typed; a
// Kith client names whom it mentioned (`mentions: [id…]`), and the server keeps the members of the
// message's group whose `@<name>` the text holds. Anyone else is dropped without a word, so an
// outsider's id is never stored, notified or answered.

/** A mention to store: who, and the name as written after `@`. */
export interface MentionInput {
  userId: string;
  written: string;
}

const badMentions = () => invalidField('mentions', 'mentions must be a list of user ids');

/**
 * `mentions` of a message body: undefined when absent or null (the 0.5.6 client never sends it),
 * else lowercase user ids without duplicates, at most LIMITS.mentionsPerMessage; anything else is
 * 400 invalid_field.
 */
export function readMentionIds(body: Body): string[] | undefined {
  const raw = body.raw('mentions');
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw badMentions();
  const ids: string[] = [];
  for (const item of raw as unknown[]) {
    const id = typeof item === 'string' ? parseId(item) : null;
    if (id === null) throw badMentions();
    if (!ids.includes(id)) ids.push(id);
  }
  if (ids.length > LIMITS.mentionsPerMessage) {
    throw invalidField('mentions', `A message can mention at most ${LIMITS.mentionsPerMessage} people`);
  }
  return ids;
}

/**
 * The mentions a message keeps once its text is `text` (docs/api §11.10), in the order first
 * written. `requested` undefined (an edit from a client that knows nothing of mentions): the stored
 * ones whose `@written` is still in the text. Otherwise each requested id counts if a stored
 * mention of it is still written, else if that person is a member of the group now and `@<current
 * name>` is in the text.
 */
export async function resolveMentions(
  tx: Tx,
  groupId: string,
  text: string | null,
  requested: string[] | undefined,
  stored: readonly MentionView[],
): Promise<MentionInput[]> {
  if (text === null || text === '') return [];
  const kept: MentionInput[] = [];
  const storedById = new Map(stored.map((m) => [m.user_id, m]));
  const fresh: string[] = [];
  for (const id of requested ?? stored.map((m) => m.user_id)) {
    const old = storedById.get(id);
    if (old !== undefined && hasMention(text, old.written_name)) kept.push({ userId: id, written: old.written_name });
    else if (requested !== undefined) fresh.push(id);
  }
  for (const member of await membersNamed(tx, groupId, fresh)) {
    if (hasMention(text, member.name)) kept.push({ userId: member.id, written: member.name });
  }
  const first = (m: MentionInput) => mentionOffsets(text, m.written)[0] ?? 0;
  return kept.sort((a, b) => first(a) - first(b));
}

/** The Mention objects of a message (its stored rows with current names). */
export function presentMentions(rows: readonly MentionView[] | undefined): Mention[] {
  return (rows ?? []).map((r) => ({ id: r.user_id, name: r.user_name, written: r.written_name }));
}

/** The mentions of each of `ids` (one query for any number of messages). */
export async function mentionsOf(db: Tx, ids: string[]): Promise<Map<string, Mention[]>> {
  const rows = await mentionViewsOf(db, ids);
  return new Map([...rows].map(([id, list]) => [id, presentMentions(list)]));
}
