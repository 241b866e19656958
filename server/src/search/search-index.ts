import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { WriteChain } from '../db/postgres-chain.js';
import type { Tx } from '../db/transaction.js';

/**
 * What the index keeps of a message (docs/api §10.7): its text fields, its author's current name
 * and its group scope.
 */
export interface IndexedMessage {
  id: string;
  groupId: string;
  title: string | null;
  text: string | null;
  /**
   * The author's current name (weight 1), `null` once the account is deleted (docs/api §10.4).
   * A rename re-indexes the author's messages (src/search/reindex.ts).
   */
  authorName: string | null;
}

/**
 * A group's index is cut into slices by age, so that what a search reads does not grow with the
 * group (issue 23, target 7; docs/decisions.md "a search window"). A message's slice is its group's
 * count of messages ever posted (`groups.messages_posted`) when it is first indexed, divided by
 * this; an edit or a rename keeps it. Every indexed word carries its slice after the group's id,
 * so a search reads only the word lists of the slices it asks for. Migration 0030 numbered the
 * messages that existed then with the same size, which rows keep: changing it needs a re-index.
 */
export const SEARCH_SLICE_MESSAGES = 8192;

/**
 * The slices one search reads: the newest 16, so at least 122,881 messages (131,072 once the newest
 * slice is full). A group that holds more is searched window by window, newest first, each answer
 * naming where the next one starts (`older`).
 */
export const SEARCH_WINDOW_SLICES = 16;

/** The highest slice number: the index writes it in four hex digits. Past it, rows stay in the last. */
export const MAX_SEARCH_SLICE = 0xffff;

/** The slice a message is indexed in, from its group's count of messages posted. */
export function sliceOf(messagesPosted: number): number {
  return Math.min(Math.floor(messagesPosted / SEARCH_SLICE_MESSAGES), MAX_SEARCH_SLICE);
}

/** A slice as the four hex digits that follow the group's id in each of its words. */
export function sliceCode(slice: number): string {
  return slice.toString(16).padStart(4, '0');
}

/**
 * The slices a search reads, `low` to `top` inclusive: the newest ones, or those below `before`
 * (an earlier answer's `older`). `null` when there is nothing below `before`.
 */
export function searchWindow(messagesPosted: number, before: number | null): { low: number; top: number } | null {
  const top = Math.min(sliceOf(messagesPosted), before === null ? MAX_SEARCH_SLICE : before - 1);
  if (top < 0) return null;
  return { low: Math.max(top - SEARCH_WINDOW_SLICES + 1, 0), top };
}

/** One search request, already checked: the caller is a member of `groupId`. */
export interface SearchQuery {
  groupId: string;
  /** Raw `search` field: words separated by `+` or white space, may hold `#hashtags`. */
  search: string;
  /** Raw `hashtags` field: more hashtags, separated by spaces or `+`, with or without `#`. */
  hashtags: string;
  /** 1–100. */
  limit: number;
  /** Search the slices below this one (an earlier answer's `older`); absent or `null`: the newest. */
  before?: number | null;
}

/**
 * What a result needs of a hit's message, plus its number of direct replies: read by the search's
 * own statement, so an answer is one query on either engine (the rows of the page used to be a
 * second one, 0.8 ms on SQLite and 2.6 ms on PostgreSQL for the benchmark's mid word).
 */
export interface HitMessage {
  id: string;
  author_id: string | null;
  parent_id: string | null;
  title: string | null;
  text: string | null;
  created_at: number;
  last_activity_date: number;
  children: number;
}

/**
 * A HitMessage's columns, read from the message row `m` (both engines' search statements), with
 * the count of its direct replies through the `messages_parent` index.
 */
export const hitColumns = sql<HitMessage>`m.id, m.author_id, m.parent_id, m.title, m.text, m.created_at,
  m.last_activity_date, (select count(*) from messages c where c.parent_id = m.id) as children`;

export interface SearchHit {
  message: HitMessage;
  score: number;
}

export interface SearchResult {
  hits: SearchHit[];
  /** All matches in the slices searched, not only the returned ones. */
  total: number;
  /** The `before` of the next window when older slices remain, else `null`. */
  older: number | null;
  /** The normalized terms actually used (`searchterms`). */
  terms: string[];
}

/**
 * The full-text index of messages (design §1): SQLite FTS5 in embedded mode, PostgreSQL full text in
 * scale-out mode, chosen once at start-up. Writes happen inside the caller's transaction, so the
 * index follows every create, edit and delete before the request answers.
 */
export interface SearchIndex {
  /**
   * Adds or replaces these messages. With `writes`, an index that writes in one statement may queue
   * it there, to go with the transaction's next statement (db/postgres-chain.ts).
   */
  upsert(tx: Tx, messages: IndexedMessage[], writes?: WriteChain): Promise<void>;
  /** Removes these messages (deleted, or turned into placeholders). */
  remove(tx: Tx, messageIds: string[]): Promise<void>;
  /**
   * Ranked matches inside one group: relevance, then newest activity, then id; each with its live
   * message, in the group (a row left in the index by mistake is never returned).
   */
  search(db: Kysely<Database>, query: SearchQuery): Promise<SearchResult>;
}
