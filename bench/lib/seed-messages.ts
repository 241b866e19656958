/**
 * Writes the messages in the order the server would have created them, with their texts, file
 * attachments, the public link, and the search index (through the server's own `ctx.search`).
 * Rows hold exactly what `createMessage` (src/features/messages/service.ts) stores.
 */
import type { AppContext } from '../../server/dist/context.js';
import type { MessagesTable, MessageFilesTable } from '../../server/dist/db/schema.js';
import type { IndexedMessage } from '../../server/dist/search/search-index.js';
import { indexTokens } from '../../server/dist/search/terms.js';
import type { SeedDb } from './db.ts';
import type { MessagePlan } from './plan-messages.ts';
import type { PeoplePlan } from './plan-people.ts';
import { Random, WeightedPicker, zipfWeights } from './prng.ts';
import { messageText, messageTitle, pickLang, type Lang, type Vocabulary } from './words.ts';

/** Messages per transaction (and per search upsert). */
const BATCH = 5_000;
/** Share of posts with a title, and of messages with hashtags. */
const TITLE_SHARE = 0.4;
const HASHTAG_SHARE = 0.1;
/** A writer now and then uses another language than their own. */
const OWN_LANGUAGE_SHARE = 0.9;

/** Document frequencies in the big group, for choosing search words. */
export interface TermStats {
  messages: number;
  /** Normalized word → messages containing it (title or text). */
  words: Map<string, number>;
  /** Normalized hashtag (without `#`) → messages carrying it. */
  hashtags: Map<string, number>;
  /** The same word counts per language of writing: words meet within a language. */
  languages: Map<Lang, { messages: number; words: Map<string, number> }>;
}

export interface WrittenMessages {
  /**
   * Notification title of each thread, by post index (docs/api §2.7): the post's title, else the
   * start of its text. Replies are never on the group page here, so the post is always the nearest
   * front ancestor-or-self.
   */
  threadTitles: Map<number, string>;
  stats: TermStats;
}

const plain = (value: string): string => value.replace(/\s+/g, ' ').trim().slice(0, 100);

/** The service's `titleOf` for a message without link previews (no generated text holds a URL). */
function notificationTitle(title: string | null, text: string | null): string {
  if (title !== null && title.trim() !== '') return plain(title);
  return plain(text ?? '');
}

/** Ancestor ids, nearest parent first, root last (the `lineage` column). */
function lineage(plan: MessagePlan, i: number): string[] {
  const out: string[] = [];
  for (let a = plan.parent[i] as number; a >= 0; a = plan.parent[a] as number) out.push(plan.ids[a] as string);
  return out;
}

function countDocument(stats: TermStats, lang: Lang, title: string | null, text: string | null): void {
  const words = new Set<string>();
  const tags = new Set<string>();
  for (const token of [...indexTokens(title), ...indexTokens(text)]) {
    (token.hashtag ? tags : words).add(token.word);
  }
  let language = stats.languages.get(lang);
  if (language === undefined) {
    language = { messages: 0, words: new Map() };
    stats.languages.set(lang, language);
  }
  stats.messages += 1;
  language.messages += 1;
  for (const w of words) {
    stats.words.set(w, (stats.words.get(w) ?? 0) + 1);
    language.words.set(w, (language.words.get(w) ?? 0) + 1);
  }
  for (const t of tags) stats.hashtags.set(t, (stats.hashtags.get(t) ?? 0) + 1);
}

/** Writes every message; `fileOf` maps a post index to the image it carries. */
export async function writeMessages(
  ctx: AppContext,
  seedDb: SeedDb,
  seed: number,
  people: PeoplePlan,
  plan: MessagePlan,
  fileOf: Map<number, string>,
  vocabularies: Record<Lang, Vocabulary>,
  hashtags: string[],
): Promise<WrittenMessages> {
  const rng = new Random(seed, 'message-texts');
  const tagPicker = new WeightedPicker(zipfWeights(hashtags.length, 1));
  const threadTitles = new Map<number, string>();
  const stats: TermStats = { messages: 0, words: new Map(), hashtags: new Map(), languages: new Map() };

  for (let from = 0; from < plan.count; from += BATCH) {
    const rows: MessagesTable[] = [];
    const attachments: MessageFilesTable[] = [];
    const indexed: IndexedMessage[] = [];
    for (let k = from; k < Math.min(from + BATCH, plan.count); k += 1) {
      const i = plan.order[k] as number;
      const author = people.users[plan.author[i] as number];
      const group = people.groups[plan.group[i] as number];
      if (author === undefined || group === undefined) throw new Error(`Message ${i} has no author or group`);
      const isPost = (plan.parent[i] as number) < 0;
      const lang = rng.chance(OWN_LANGUAGE_SHARE) ? author.lang : pickLang(rng);
      const vocabulary = vocabularies[lang];
      const title = isPost && rng.chance(TITLE_SHARE) ? messageTitle(rng, vocabulary) : null;
      // 5 to 200 words, most messages short; replies shorter than posts.
      const words = 5 + Math.floor(195 * Math.pow(rng.next(), isPost ? 3 : 5));
      const tags: string[] = [];
      if (rng.chance(HASHTAG_SHARE)) {
        const wanted = rng.between(1, 3);
        for (let t = 0; t < wanted; t += 1) {
          const tag = hashtags[tagPicker.pick(rng)] as string;
          if (!tags.includes(tag)) tags.push(tag);
        }
      }
      const text = messageText(rng, vocabulary, words, tags);
      const id = plan.ids[i] as string;
      const ancestors = lineage(plan, i);
      rows.push({
        id,
        group_id: group.id,
        author_id: author.id,
        parent_id: isPost ? null : (plan.ids[plan.parent[i] as number] as string),
        root_id: ancestors.at(-1) ?? id,
        lineage: JSON.stringify(ancestors),
        title,
        text,
        no_embed: null,
        created_at: plan.createdAt[i] as number,
        last_activity_date: plan.activity[i] as number,
        is_in_front: isPost ? 1 : 0,
        is_deleted: 0,
        public_token: i === plan.publicPost ? plan.publicToken : null,
        pin_order: null,
      });
      const file = fileOf.get(i);
      if (file !== undefined) attachments.push({ message_id: id, file_id: file, position: 0 });
      indexed.push({ id, groupId: group.id, title, text, authorName: author.name });
      if (isPost) threadTitles.set(i, notificationTitle(title, text));
      if (group.index === 0) countDocument(stats, lang, title, text);
    }
    await seedDb.transaction(async (tx) => {
      await seedDb.insert(tx, 'messages', rows);
      await seedDb.insert(tx, 'message_files', attachments);
      await ctx.search.upsert(tx, indexed);
    });
  }
  return { threadTitles, stats };
}
