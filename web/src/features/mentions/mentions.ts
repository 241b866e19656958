import { LIMITS, mentionOffsets, type Mention, type UserRef } from '@kith/common';

// @mentions in the web client (issue 21, docs/api §11.10): finding them in a text to show them
// under the current name, the suggestions the composer offers after `@`, and which of the people
// picked the text still names when it is sent.

/** A piece of a text: as written, or a mention shown under its current name. */
export type MentionPart = { type: 'text'; text: string } | { type: 'mention'; mention: Mention };

/**
 * Splits `text` at its mentions (`@written`, see common/src/mentions.ts). Where two mentions start
 * at the same place (`@Ana` and `@Ana Silva`) the longer one wins; overlaps keep the first.
 */
export function splitMentions(text: string, mentions: readonly Mention[]): MentionPart[] {
  if (mentions.length === 0 || !text.includes('@')) return [{ type: 'text', text }];
  const found: { at: number; end: number; mention: Mention }[] = [];
  for (const mention of mentions) {
    for (const at of mentionOffsets(text, mention.written)) {
      found.push({ at, end: at + 1 + mention.written.length, mention });
    }
  }
  found.sort((a, b) => a.at - b.at || b.end - a.end);
  const parts: MentionPart[] = [];
  let pos = 0;
  for (const hit of found) {
    if (hit.at < pos) continue;
    if (hit.at > pos) parts.push({ type: 'text', text: text.slice(pos, hit.at) });
    parts.push({ type: 'mention', mention: hit.mention });
    pos = hit.end;
  }
  if (pos < text.length) parts.push({ type: 'text', text: text.slice(pos) });
  return parts;
}

/** A text with each mention written under the person's current name (cards, titles, excerpts). */
export function withCurrentNames(text: string, mentions: readonly Mention[] | undefined): string {
  if (mentions === undefined || mentions.length === 0) return text;
  return splitMentions(text, mentions)
    .map((p) => (p.type === 'text' ? p.text : `@${p.mention.name}`))
    .join('');
}

/** Lower case without accents, for matching what is typed against names ("cle" finds "Cléo"). */
export function fold(value: string): string {
  return value.normalize('NFD').replace(/\p{M}/gu, '').toLocaleLowerCase();
}

/** The `@query` being typed at the caret: where its `@` is and what follows it, else null. */
export interface MentionQuery {
  /** Index of the `@` in the text. */
  start: number;
  /** What is typed between the `@` and the caret. */
  query: string;
}

const WORD = /[\p{L}\p{M}\p{N}_]/u;
/** Longest query looked at: a name is at most LIMITS.name characters. */
const QUERY_MAX = LIMITS.name;

/**
 * The mention being typed when the caret is at `caret`: an `@` at the start of a word (start of
 * the text, or after a space or punctuation), followed by at most two words and no line break.
 */
export function mentionQueryAt(text: string, caret: number): MentionQuery | null {
  const from = Math.max(0, caret - QUERY_MAX - 1);
  const at = text.lastIndexOf('@', caret - 1);
  if (at < from || at < 0) return null;
  const before = at === 0 ? '' : text.charAt(at - 1);
  if (before !== '' && WORD.test(before)) return null;
  const query = text.slice(at + 1, caret);
  // A space right after the @, or after the name (as inserted), ends the mention being typed.
  if (query.includes('\n') || query.startsWith(' ') || query.endsWith(' ') || query.includes('@')) return null;
  // "@Ana Silva" has one space; more words than a name has mean the mention was left behind.
  if (query.split(' ').length > 3) return null;
  return { start: at, query };
}

/**
 * The members to suggest for `query`: not oneself, whose name has a word starting with it (or
 * contains it, as a whole, after the first letters) ignoring case and accents; those whose name
 * starts with it first, at most LIMITS.mentionSuggestions.
 */
export function suggestMembers(members: readonly UserRef[], query: string, meId: string): UserRef[] {
  const q = fold(query.trim());
  const scored: { user: UserRef; rank: number }[] = [];
  for (const user of members) {
    if (user.id === meId) continue;
    const name = fold(user.name);
    if (q === '') scored.push({ user, rank: 1 });
    else if (name.startsWith(q)) scored.push({ user, rank: 0 });
    else if (name.split(/\s+/).some((word) => word.startsWith(q))) scored.push({ user, rank: 1 });
  }
  return scored
    .sort((a, b) => a.rank - b.rank || a.user.name.localeCompare(b.user.name))
    .slice(0, LIMITS.mentionSuggestions)
    .map((s) => s.user);
}

/** A person picked in the composer, or already mentioned by the message being edited. */
export interface PickedMention {
  id: string;
  /** The names under which the text may hold them: as written before, and as inserted. */
  names: string[];
}

/** The ids to send: those picked whose `@name` (one of theirs) the text still holds. */
export function mentionIdsToSend(text: string, picked: readonly PickedMention[]): string[] {
  return picked
    .filter((p) => p.names.some((name) => mentionOffsets(text, name).length > 0))
    .map((p) => p.id)
    .filter((id, i, all) => all.indexOf(id) === i);
}

/** The picks an edit starts with: the message's stored mentions, under both names. */
export function initialPicks(mentions: readonly Mention[] | undefined): PickedMention[] {
  return (mentions ?? []).map((m) => ({ id: m.id, names: [...new Set([m.written, m.name])] }));
}
