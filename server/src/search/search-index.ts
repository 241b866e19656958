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

/** One search request, already checked: the caller is a member of `groupId`. */
export interface SearchQuery {
  groupId: string;
  /** Raw `search` field: words separated by `+` or white space, may hold `#hashtags`. */
  search: string;
  /** Raw `hashtags` field: more hashtags, separated by spaces or `+`, with or without `#`. */
  hashtags: string;
  /** 1–100. */
  limit: number;
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
  /** All matches, not only the returned ones. */
  total: number;
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
