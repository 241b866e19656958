import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';

// SQLite only: the group moves from a `scope` column into every term. Each query ANDed the group's
// scope token, whose list holds every message of the group: 100,000 entries in the benchmark's big
// group, read in full by every search, so a word with 22 hits took 8 ms (bench/README.md). Now each
// word is stored as the group id (32 hex digits, no dashes) followed by the word, so a search reads
// only the lists of its own group's words. The table is contentless: FTS5 kept a second copy of
// every indexed text that nothing reads, and the prefixed words would have made it much larger.
// `message_id` is still stored (contentless_unindexed). The rows are copied with their rowids, so
// `message_search_rows` still maps them. PostgreSQL keeps its group column and index: nothing to do.

export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) !== 'sqlite') return;
  // Kysely runs SQLite migrations outside a transaction; this one swaps a table, so it is one.
  await db.transaction().execute(async (tx) => {
    // As in 0004: the trigger names `message_search` in its body, so it goes while the table is
    // swapped and comes back unchanged.
    await sql`drop trigger message_search_rows_delete`.execute(tx);
    await sql`alter table message_search rename to message_search_0010`.execute(tx);
    // Prefix indexes of 2 and 3 characters after the 32 of the group, as 0003 had for bare words.
    await sql`
      create virtual table message_search using fts5(
        message_id unindexed,
        title,
        text,
        author,
        tokenize = "unicode61 remove_diacritics 2 tokenchars '#'",
        prefix = '34 35',
        content = '',
        contentless_delete = 1,
        contentless_unindexed = 1
      )`.execute(tx);
    // The stored columns hold the application's normalized words joined by single spaces
    // (src/search/sqlite-fts.ts), and `scope` is `g` and the group's 32 digits: each word gets them.
    const prefixed = (column: 'title' | 'text' | 'author') =>
      sql`case when coalesce(${sql.ref(column)}, '') = '' then ''
          else substr(scope, 2) || replace(${sql.ref(column)}, ' ', ' ' || substr(scope, 2)) end`;
    await sql`
      insert into message_search (rowid, message_id, title, text, author)
      select rowid, message_id, ${prefixed('title')}, ${prefixed('text')}, ${prefixed('author')}
      from message_search_0010`.execute(tx);
    await sql`drop table message_search_0010`.execute(tx);
    await sql`
      create trigger message_search_rows_delete after delete on message_search_rows
      begin
        delete from message_search where rowid = old.id;
      end`.execute(tx);
  });
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
