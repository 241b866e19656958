import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';

// PostgreSQL only: the full-text index keys each word by its group, as 0011 did on SQLite. A search
// ANDed the group's `@<group id>` lexeme with its terms, and a word term is a prefix: the index
// gathered every row of every group holding a word that starts so (100,906 for `that:*` in a
// benchmark-like million messages, 31 ms) before keeping the group's 10,485. Now the index holds
// each lexeme as the group id's 32 hex digits (no dashes) followed by the lexeme, so a prefix term
// reads only its own group's entries (4 ms). The index is on an expression: the stored `document`
// stays as it is (ts_rank reads it, and longer lexemes made the rows 1.7 times larger and ranking
// slower), so existing rows need no rewrite and the application writes them as before.
// src/search/postgres-fts.ts queries the expression exactly as written here.
// Kysely runs PostgreSQL migrations in a transaction: stopped halfway, nothing is left.

/**
 * The lexemes of a tsvector's or tsquery's text form (`'word':1A 'other'`, `'word':* & 'x'`) with the
 * group's digits put in front of each: every quoted string is one lexeme (a quote inside is
 * doubled), and positions, weights and operators stay outside the quotes.
 */
const SCOPED_TEXT = `regexp_replace(lexemes::text, '''((?:[^'']|'''')*)''', '''' || replace(group_id, '-', '') || '\\1''', 'g')`;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === 'sqlite') return;
  // Both functions rewrite the text form of their argument. Their bodies name nothing outside
  // pg_catalog: an index expression also runs where the search path is empty (pg_restore).
  for (const type of ['tsvector', 'tsquery']) {
    await sql`
      create or replace function kith_search_scoped(lexemes ${sql.raw(type)}, group_id text)
      returns ${sql.raw(type)}
      language sql immutable parallel safe strict
      as ${sql.lit(`select ${SCOPED_TEXT}::${type}`)}`.execute(db);
  }
  await sql`
    create index if not exists message_search_scoped on message_search
    using gin (kith_search_scoped(document, group_id))`.execute(db);
  // Nothing queries the unscoped index any more; every write paid for it.
  await sql`drop index if exists message_search_document`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
