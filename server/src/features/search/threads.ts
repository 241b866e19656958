import type { AppContext } from '../../context.js';
import { ApiError } from '../../lib/errors.js';
import { Lane } from '../../lib/lane.js';
import { ThreadWorker, siblingModule, type ThreadWorkerLimits } from '../../lib/thread-worker.js';
import { openSearchConnections } from '../../search/postgres-fts.js';
import type { SearchQuery } from '../../search/search-index.js';
import { answerSearch, jsonBytes } from './answer.js';
import type { SearchSetup } from './worker.js';

/**
 * Where searches run: `answer` gives the answer to a search the caller may make, as the UTF-8 bytes
 * of its JSON (a `SearchAnswer`). The worker serializes it and moves the bytes to the server's
 * thread: an answer of 100 hits with snippets is about 60 KB of JSON, and as objects or as a string
 * (two bytes a character, for the snippets' `…`) each one landed in the server's old generation; at
 * 250 searches a second that grew its heap by 30 MB a second between full collections (benchmark,
 * search-mid at full scale). Bytes outside the heap are freed with the young generation.
 */
export interface SearchRunner {
  answer(query: SearchQuery): Promise<Uint8Array>;
  /** The thread searches run in now: null for the server's own, or while no worker runs. */
  readonly threadId: number | null;
  stop(): Promise<void>;
}

/** Limits of the search worker. Exported as a mutable object so tests can change them. */
export const searchThreadLimits: ThreadWorkerLimits & { maxWaiting: number; atOnceOnPostgres: number } = {
  /**
   * The most common word of a group of 100,000 messages takes about 35 ms (bench/README.md); a
   * search still running after 10 s is abandoned (its worker terminated) rather than hold the
   * searches behind it.
   */
  deadlineMs: 10_000,
  /**
   * A worker and its connection are 15-20 MB of the server's memory: it exits after this long
   * without a search. Searches come in bursts (a person refining a query); the first search after a
   * pause pays the start of a thread, a few tens of ms.
   */
  idleStopMs: 10_000,
  /**
   * Meanwhile, after a second without a search, the worker shrinks its heap and empties its SQLite
   * page cache (`releaseInWorker`): under load V8 grows the heap by some 15 MB, which its own memory
   * reducer gives back only 8 s or more later (bench/README.md, idle memory), and the cache holds up
   * to 8 MiB. A search after such a pause reads its pages from the system's file cache again, a
   * few ms for the most common words (docs/decisions.md, seventeenth session).
   */
  idleReclaimMs: 1000,
  /**
   * Searches waiting for the worker past which the next is answered 503 at once: a crowd of slow
   * searches then costs the searchers a retry, not minutes of queue (and memory).
   */
  maxWaiting: 200,
  /**
   * Searches PostgreSQL runs at once. The pool has 10 connections; 25 clients searching the most
   * common word took them all, and the group page waited for one: p99 414 ms instead of 26 under
   * the `mixed` benchmark (full scale). One at a time, as the SQLite worker does, leaves the pool and
   * the database's CPU to the other requests; the searches wait their turn holding no connection.
   * They have connections of their own (openSearchConnections), this many.
   */
  atOnceOnPostgres: 1,
};

const unavailable = (message: string) =>
  new ApiError(503, 'service_unavailable', message, undefined, { 'Retry-After': '1' });
const tooMany = () => unavailable('Too many searches at once. Try again in a moment');

/**
 * On SQLite, searches run in a worker thread with its own read-only connection (worker.ts): ranking
 * the most common word's hits and cutting snippets took the only event loop for 33 ms a search, and
 * under 50 connections every other request queued behind them (issue 23). The server's thread only
 * checks membership, and answers other requests meanwhile. PostgreSQL does the query's work in its
 * own processes, so there the search runs in the server's thread, one at a time (`Lane`), on
 * connections of its own (openSearchConnections). So does a search of a SQLite `:memory:` database
 * (tests), on the server's connection: no other can open it.
 */
export function searchRunner(ctx: AppContext): SearchRunner {
  const database = ctx.config.database;
  if (database.kind !== 'sqlite' || database.file === ':memory:') {
    const lane = new Lane(searchThreadLimits.atOnceOnPostgres);
    const db =
      database.kind === 'postgres'
        ? openSearchConnections(database.url, searchThreadLimits.atOnceOnPostgres)
        : ctx.db.kysely;
    return {
      answer: (query) => {
        if (lane.pending >= searchThreadLimits.maxWaiting) return Promise.reject(tooMany());
        return lane.run(async () => jsonBytes(await answerSearch(db, ctx.search, query)));
      },
      threadId: null,
      stop: async () => {
        if (db !== ctx.db.kysely) await db.destroy();
      },
    };
  }
  const worker = new ThreadWorker<SearchQuery, Uint8Array, SearchSetup>({
    module: siblingModule(import.meta.url, 'worker'),
    exported: 'answerInWorker',
    reclaim: 'releaseInWorker',
    setup: { file: database.file },
    limits: searchThreadLimits,
    // A search holds at most 100 rows and their snippets; the full-text work is SQLite's, outside
    // the JavaScript heap. Left to V8's defaults, the worker's heap took some 50 MB more under the
    // search scenarios of the benchmark.
    resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 },
    errors: {
      timeout: () => unavailable('The search took too long. Try again with more words'),
      died: () => unavailable('The search failed. Try again in a moment'),
      stopped: () => unavailable('The server is restarting. Try again in a moment'),
      // A bug of the search itself: a 500, logged, as it would be in the server's thread.
      threw: (message) => new Error(`the search failed in its worker: ${message}`),
      notStarted: (reason) => {
        ctx.log.error({ reason }, 'the search worker did not start');
        return unavailable('The search is unavailable. Try again in a moment');
      },
    },
  });
  return {
    answer: (query) => {
      if (worker.pending >= searchThreadLimits.maxWaiting) return Promise.reject(tooMany());
      return worker.run(query);
    },
    get threadId() {
      return worker.threadId;
    },
    stop: () => worker.stop(),
  };
}
