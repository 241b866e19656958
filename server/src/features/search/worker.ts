import type { Kysely } from 'kysely';
import { openReadOnly } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { SqliteFtsIndex } from '../../search/sqlite-fts.js';
import type { SearchQuery } from '../../search/search-index.js';
import { answerSearch, jsonBytes } from './answer.js';

/** What the search worker is started with (threads.ts). */
export interface SearchSetup {
  /** The SQLite file the server writes. */
  file: string;
}

// The worker's own read-only connection, opened with its first search and kept while it lives.
let db: { kysely: Kysely<Database>; releaseMemory: () => void } | null = null;
const index = new SqliteFtsIndex();

/**
 * Runs in the search worker thread (lib/thread-worker.ts): one search, on its own connection, its
 * answer as the bytes of its JSON (threads.ts says why).
 */
export async function answerInWorker(query: SearchQuery, setup: SearchSetup): Promise<Uint8Array> {
  db ??= openReadOnly(setup.file);
  return jsonBytes(await answerSearch(db.kysely, index, query));
}

/**
 * Called when the worker has been idle for `idleReclaimMs` (threads.ts): its connection's page
 * cache goes back, up to 8 MiB that an idle server would otherwise hold until the worker exits.
 */
export function releaseInWorker(): void {
  db?.releaseMemory();
}
