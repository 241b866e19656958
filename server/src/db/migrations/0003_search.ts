import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';

// The message search index (design §1, docs/api §10.7), the one migration whose tables differ by
// engine: SQLite FTS5 in embedded mode, PostgreSQL full text in scale-out mode. The code that
// writes and queries them is src/search/sqlite-fts.ts and src/search/postgres-fts.ts. Messages that
// already exist are indexed here; from then on the messages service keeps the index current.

export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === 'sqlite') await upSqlite(db);
  else await upPostgres(db);
}

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  // The FTS5 table. `#` is a token character, so `#noel` is one token, distinct from `noel`.
  // `scope` holds one token per group (`g` + the group id without dashes) that every query ANDs
  // in: the full-text index itself keeps a search inside its group, so no query reads other
  // groups' rows. message_id is stored, not indexed. Prefix indexes of 2 and 3 characters keep
  // short prefix terms (`an*`) fast.
  await sql`
    create virtual table message_search using fts5(
      message_id unindexed,
      scope,
      title,
      text,
      tokenize = "unicode61 remove_diacritics 2 tokenchars '#'",
      prefix = '2 3'
    )`.execute(db);
  // Message id → FTS rowid, so a message's row is found by its id through an index (the rowid of
  // `messages` itself is not stable: VACUUM may renumber it). Deleting a row here, directly or
  // through the cascade when a message or its group is deleted, deletes the FTS row.
  await sql`
    create table message_search_rows (
      id integer primary key,
      message_id text not null unique references messages (id) on delete cascade
    )`.execute(db);
  await sql`
    create trigger message_search_rows_delete after delete on message_search_rows
    begin
      delete from message_search where rowid = old.id;
    end`.execute(db);

  // Existing messages. The tokenizer folds case and accents of the raw text here; new writes get
  // the application's normalization first (src/search/terms.ts), which agrees on everyday text.
  await sql`insert into message_search_rows (message_id) select id from messages where is_deleted = 0`.execute(db);
  await sql`
    insert into message_search (rowid, message_id, scope, title, text)
    select r.id, m.id, 'g' || replace(m.group_id, '-', ''), coalesce(m.title, ''), coalesce(m.text, '')
    from message_search_rows r join messages m on m.id = r.message_id`.execute(db);
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  // unaccent ships with PostgreSQL's contrib and is a trusted extension (13+): the database owner
  // may create it without superuser rights.
  await sql`create extension if not exists unaccent`.execute(db);
  // unaccent() is only STABLE (its dictionary could change), so it cannot appear in an index
  // expression or a generated column. This wrapper names the dictionary with its schema and is
  // declared IMMUTABLE, the usual way to use it in indexes. The schema comes from the catalog.
  const { rows } = await sql<{ schema: string }>`
    select quote_ident(n.nspname) as schema
    from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = 'unaccent'`.execute(db);
  const schema = rows[0]?.schema;
  if (schema === undefined) throw new Error('Search migration: the unaccent extension is missing');
  await sql`
    create or replace function kith_unaccent(text) returns text
    language sql immutable parallel safe strict
    as ${sql.lit(`select ${schema}.unaccent('${schema}.unaccent'::regdictionary, $1)`)}`.execute(db);

  // One row per indexed message. `document`: title words (weight A), text words (weight B), and
  // one `@<group id>` lexeme that no search term can produce and that every query ANDs in, so the
  // GIN index keeps a search inside its group. Hashtags are stored apart, without `#`, for exact
  // hashtag terms (design §1).
  await sql`
    create table message_search (
      message_id text primary key references messages (id) on delete cascade,
      group_id text not null,
      document tsvector not null,
      hashtags text[] not null default '{}'
    )`.execute(db);
  await sql`create index message_search_document on message_search using gin (document)`.execute(db);
  await sql`create index message_search_hashtags on message_search using gin (hashtags)`.execute(db);

  // Existing messages, with the same functions the application's writes go through.
  await sql`
    insert into message_search (message_id, group_id, document, hashtags)
    select m.id, m.group_id,
      setweight(to_tsvector('simple', kith_unaccent(coalesce(m.title, ''))), 'A')
        || setweight(to_tsvector('simple', kith_unaccent(coalesce(m.text, ''))), 'B')
        || array_to_tsvector(array['@' || m.group_id]),
      array(
        select distinct lower(kith_unaccent(tag[1]))
        from regexp_matches(coalesce(m.title, '') || ' ' || coalesce(m.text, ''), '(?:^|[^[:alnum:]#])#+([[:alnum:]]+)', 'g') as tag
      )
    from messages m
    where m.is_deleted = 0`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
