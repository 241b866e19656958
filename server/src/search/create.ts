import type { Dialect } from '../db/database.js';
import { PostgresFtsIndex } from './postgres-fts.js';
import type { SearchIndex } from './search-index.js';
import { SqliteFtsIndex } from './sqlite-fts.js';

/** The search index of the configured engine (design §1): FTS5 on SQLite, full text on PostgreSQL. */
export function createSearchIndex(dialect: Dialect): SearchIndex {
  return dialect === 'postgres' ? new PostgresFtsIndex() : new SqliteFtsIndex();
}
