import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';
import { indexTokens } from '../../search/terms.js';

// The author's current name joins the search index (docs/api §10.7: weight 1, below title 3 and
// text 2). SQLite: the FTS5 table gets an `author` column; FTS5 cannot add a column, so the table is
// rebuilt and its rows copied as they are (rowids kept, so `message_search_rows` still maps them).
// PostgreSQL: the schema does not change, the author's words join each `document` with weight C.
// On both, existing messages get their author's name here; from then on the messages and users
// services keep it current (src/search/reindex.ts).

interface Author {
  id: string;
  /** The name's normalized words, as the index stores them (src/search/terms.ts, no `#`). */
  words: string;
}

/**
 * Every user who wrote a message that is indexed, with the words of their name. The application's
 * tokenizer normalizes them, so names indexed here match exactly as names indexed later do (the
 * database's own folding differs on letters such as `ø` or `ß`).
 */
async function authors(db: Kysely<unknown>): Promise<Author[]> {
  const { rows } = await sql<{ id: string; name: string }>`
    select u.id, u.name from users u
    where exists (select 1 from messages m where m.author_id = u.id and m.is_deleted = 0)`.execute(db);
  return rows
    .map((row) => ({
      id: row.id,
      words: indexTokens(row.name)
        .map((token) => token.word)
        .join(' '),
    }))
    .filter((author) => author.words !== '');
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === 'sqlite') {
    // Kysely runs SQLite migrations outside a transaction; this one swaps a table, so it is one.
    await db.transaction().execute((tx) => upSqlite(tx));
  } else {
    await upPostgres(db);
  }
}

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  // The trigger of 0003 names `message_search` in its body: it goes while the table is swapped
  // (a rename would rewrite it to follow the old table) and comes back unchanged.
  await sql`drop trigger message_search_rows_delete`.execute(db);
  await sql`alter table message_search rename to message_search_0003`.execute(db);
  // Same options as 0003, plus `author`: the name's normalized words.
  await sql`
    create virtual table message_search using fts5(
      message_id unindexed,
      scope,
      title,
      text,
      author,
      tokenize = "unicode61 remove_diacritics 2 tokenchars '#'",
      prefix = '2 3'
    )`.execute(db);

  // Author names, one row per author, so the copy below is one statement whatever their number.
  await sql`create temp table message_search_authors (id text primary key, words text not null)`.execute(db);
  const list = await authors(db);
  for (let i = 0; i < list.length; i += 200) {
    const values = list.slice(i, i + 200).map((a) => sql`(${a.id}, ${a.words})`);
    await sql`insert into message_search_authors (id, words) values ${sql.join(values)}`.execute(db);
  }
  // Every row as it was (the application's normalized title and text), with its author's words.
  await sql`
    insert into message_search (rowid, message_id, scope, title, text, author)
    select o.rowid, o.message_id, o.scope, o.title, o.text, coalesce(a.words, '')
    from message_search_0003 o
    left join messages m on m.id = o.message_id and m.is_deleted = 0
    left join message_search_authors a on a.id = m.author_id`.execute(db);
  await sql`drop table message_search_authors`.execute(db);
  await sql`drop table message_search_0003`.execute(db);

  await sql`
    create trigger message_search_rows_delete after delete on message_search_rows
    begin
      delete from message_search where rowid = old.id;
    end`.execute(db);
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  // No document holds author words yet: they are appended, with weight C, in one statement.
  const list = await authors(db);
  if (list.length === 0) return;
  await sql`
    update message_search s
    set document = s.document || setweight(to_tsvector('simple', kith_unaccent(a.words)), 'C')
    from messages m
    join unnest(${list.map((a) => a.id)}::text[], ${list.map((a) => a.words)}::text[]) as a(id, words)
      on a.id = m.author_id
    where m.id = s.message_id and m.is_deleted = 0`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
