/**
 * Search terms for the benchmark, chosen by measuring the big group: a rare word (10–50 messages at
 * full scale), a mid-frequency one (0.5–2 %), the most common word of four letters or more, a
 * hashtag and a pair of words. Shares are of the messages a search reads, the group's newest window
 * (search-index.ts): all of the full scale's 100,000, the newest 123,456 of x10's million, so a
 * "mid" word is as frequent where it is searched at every scale and x10 compares like with like.
 * Candidates come from document frequencies counted while writing; each is then run through the
 * server's own search (`ctx.search.search`, what POST /api/messages/search calls), whose total
 * becomes the expected answer. A word term matches by prefix and in author names too, so the total
 * can exceed the counted frequency: that is why the real search decides.
 */
import type { AppContext } from '../../server/dist/context.js';
import { SEARCH_SLICE_MESSAGES, searchWindow } from '../../server/dist/search/search-index.js';
import type { TermStats } from './seed-messages.ts';

export interface SearchTerms {
  groupId: string;
  rare: string;
  mid: string;
  common: string;
  hashtag: string;
  twoWords: string;
  expected: { rare: number; mid: number; common: number; hashtag: number; twoWords: number };
}

/** How many candidates are tried against the real search before settling for the closest. */
const MAX_TRIES = 40;

const length = (word: string): number => [...word].length;
/** A plain word: letters only (no digits), so it reads as a word in the report. */
const isWord = (word: string): boolean => /^\p{L}+$/u.test(word);

/** Picks the five terms and their expected totals. */
export async function chooseSearchTerms(ctx: AppContext, groupId: string, stats: TermStats): Promise<SearchTerms> {
  const total = async (search: string): Promise<number> =>
    (await ctx.search.search(ctx.db.kysely, { groupId, search, hashtags: '', limit: 1 })).total;
  // The messages of the newest window, and each count estimated within it: the seed spreads every
  // word evenly over time.
  const n = stats.messages - (searchWindow(stats.messages, null)?.low ?? 0) * SEARCH_SLICE_MESSAGES;
  const inWindow = (count: number): number => (count * n) / stats.messages;
  const scale = n / 100_000;
  const words = [...stats.words.entries()]
    .filter(([w]) => isWord(w) && length(w) >= 4)
    .map(([w, df]): [string, number] => [w, inWindow(df)])
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));

  /**
   * The candidate whose real total is closest to `target`, preferring totals inside [lo, hi]. Each
   * round searches the untried candidate whose estimate, corrected by how far the real totals so
   * far were from their estimates (prefix matches, author names, words of one language meeting
   * more often than chance), lands nearest the target. At most MAX_TRIES searches; stops at a
   * total within 25 % of the target.
   */
  async function within(candidates: [string, number][], target: number, lo: number, hi: number) {
    const distance = (count: number) => Math.abs(Math.log(Math.max(count, 0.5) / target));
    const left = candidates.map(([term, estimate]) => ({ term, estimate: Math.max(estimate, 0.5) }));
    let logRatio = 0;
    let best: { term: string; total: number; inRange: boolean } | undefined;
    for (let tries = 0; tries < MAX_TRIES && left.length > 0; tries += 1) {
      const correction = tries === 0 ? 1 : Math.exp(logRatio / tries);
      let pick = 0;
      for (let k = 1; k < left.length; k += 1) {
        const a = left[k] as { term: string; estimate: number };
        const b = left[pick] as { term: string; estimate: number };
        const da = distance(a.estimate * correction);
        const db = distance(b.estimate * correction);
        if (da < db || (da === db && a.term < b.term)) pick = k;
      }
      const [{ term, estimate }] = left.splice(pick, 1) as [{ term: string; estimate: number }];
      const found = await total(term);
      logRatio += Math.log(Math.max(found, 0.5) / estimate);
      const inRange = found >= lo && found <= hi;
      if (
        best === undefined ||
        (inRange && !best.inRange) ||
        (inRange === best.inRange && distance(found) < distance(best.total))
      ) {
        best = { term, total: found, inRange };
      }
      if (inRange && distance(found) < Math.log(1.25)) break;
    }
    if (best === undefined) throw new Error(`No search term near ${target} messages`);
    return { term: best.term, total: best.total };
  }

  const [commonWord] = words[0] ?? [];
  if (commonWord === undefined) throw new Error('The big group has no words');
  const common = { term: commonWord, total: await total(commonWord) };

  const midLo = Math.max(2, Math.round(0.005 * n));
  const midHi = Math.max(midLo, Math.round(0.02 * n));
  const mid = await within(
    words.filter(([, df]) => df >= midLo && df <= midHi),
    Math.sqrt(midLo * midHi),
    midLo,
    midHi,
  );

  // Rare: 10–50 messages of 100,000; at small scale a handful, still rarer than "mid".
  const rareLo = Math.max(2, Math.round(10 * scale));
  const rareHi = Math.max(5, Math.round(50 * scale));
  const rare = await within(
    words.filter(([w, df]) => df >= rareLo && df <= rareHi && length(w) >= 5),
    Math.sqrt(rareLo * rareHi),
    rareLo,
    rareHi,
  );

  // A hashtag used by about 0.4 % of the messages.
  const tagTarget = Math.max(3, 0.004 * n);
  const tags = [...stats.hashtags.entries()].map(([t, df]): [string, number] => [`#${t}`, inWindow(df)]);
  const hashtag = await within(tags, tagTarget, Math.ceil(tagTarget / 3), Math.floor(tagTarget * 3));

  // Two words that meet in about 0.09 % of the messages. Words are drawn independently within a
  // message's language, so the estimate sums, per language, the product of the two frequencies.
  const pairTarget = Math.max(3, 0.0009 * n);
  const frequent = words.slice(0, 120);
  const pairs: [string, number][] = [];
  for (let a = 0; a < frequent.length; a += 1) {
    for (let b = a + 1; b < frequent.length; b += 1) {
      const [wa] = frequent[a] as [string, number];
      const [wb] = frequent[b] as [string, number];
      if (wa.startsWith(wb) || wb.startsWith(wa)) continue;
      let together = 0;
      for (const language of stats.languages.values()) {
        together += ((language.words.get(wa) ?? 0) * (language.words.get(wb) ?? 0)) / language.messages;
      }
      pairs.push([`${wa} ${wb}`, inWindow(together)]);
    }
  }
  const twoWords = await within(pairs, pairTarget, Math.ceil(pairTarget / 3), Math.floor(pairTarget * 3));

  return {
    groupId,
    rare: rare.term,
    mid: mid.term,
    common: common.term,
    hashtag: hashtag.term,
    twoWords: twoWords.term,
    expected: {
      rare: rare.total,
      mid: mid.total,
      common: common.total,
      hashtag: hashtag.total,
      twoWords: twoWords.total,
    },
  };
}
