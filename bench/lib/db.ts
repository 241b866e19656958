/**
 * The database side of seeding: a fresh database of either engine, opened the way the server opens
 * it, and bulk inserts that are much faster than the services' one-row-at-a-time writes.
 */
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type Selectable } from 'kysely';
import pg from 'pg';
import type { Config } from '../../server/dist/config.js';
import { openDatabase, type Db } from '../../server/dist/db/database.js';
import type { Database } from '../../server/dist/db/schema.js';
import type { Tx } from '../../server/dist/db/transaction.js';

/** What a personal notification row and a group event both hold (migration 0024). */
const NOTIFICATION_CONTENT = {
  type: 'text',
  created_at: 'bigint',
  target: 'text',
  data: 'text',
  from_user_id: 'text',
  from_group_id: 'text',
  from_message_id: 'text',
  title: 'text',
} as const;

/** The tables the seeder fills, with each column's PostgreSQL type (for typed `unnest` arrays). */
const COLUMNS = {
  users: {
    id: 'text',
    login: 'text',
    name: 'text',
    password_hash: 'text',
    api_key_hash: 'text',
    api_key_enc: 'text',
    api_key_version: 'integer',
    avatar_id: 'text',
    default_group_id: 'text',
    notification_emails: 'text',
    lang: 'text',
    theme: 'text',
    default_page: 'text',
    mention_emails: 'text',
    push_notifications: 'text',
    quiet_hours: 'text',
    time_zone: 'text',
    push_cursor: 'bigint',
    created_at: 'bigint',
    last_activity_date: 'bigint',
    storage_bytes: 'bigint',
    storage_reserved: 'bigint',
    disabled_at: 'bigint',
    notifications_read_until: 'bigint',
  },
  groups: {
    id: 'text',
    name: 'text',
    secret_key: 'text',
    created_at: 'bigint',
    last_activity_date: 'bigint',
    emptied_at: 'bigint',
    front_count: 'integer',
    messages_posted: 'integer',
  },
  memberships: { group_id: 'text', user_id: 'text', joined_at: 'bigint' },
  messages: {
    id: 'text',
    group_id: 'text',
    author_id: 'text',
    parent_id: 'text',
    root_id: 'text',
    lineage: 'text',
    title: 'text',
    text: 'text',
    no_embed: 'integer',
    created_at: 'bigint',
    last_activity_date: 'bigint',
    is_in_front: 'integer',
    is_deleted: 'integer',
    public_token: 'text',
    pin_order: 'integer',
  },
  files: {
    id: 'text',
    uploader_id: 'text',
    type: 'text',
    kind: 'text',
    status: 'text',
    size: 'bigint',
    name: 'text',
    storage_key: 'text',
    ext: 'text',
    width: 'integer',
    height: 'integer',
    progress: 'integer',
    error: 'text',
    created_at: 'bigint',
    updated_at: 'bigint',
  },
  message_files: { message_id: 'text', file_id: 'text', position: 'integer' },
  notifications: { id: 'text', user_id: 'text', ...NOTIFICATION_CONTENT, read: 'integer', emailed_at: 'bigint' },
  notification_events: { id: 'text', group_id: 'text', actor_id: 'text', ...NOTIFICATION_CONTENT },
  bookmarks: { id: 'text', user_id: 'text', message_id: 'text', created_at: 'bigint' },
} as const satisfies { [T in keyof Database]?: Record<keyof Database[T], string> };

export type SeedTable = keyof typeof COLUMNS;

/** Rows per PostgreSQL statement: one set of arrays of this length per column. */
const PG_CHUNK = 5_000;

/** The database being seeded: the server's `Db`, plus fast inserts on the same connection(s). */
export interface SeedDb {
  db: Db;
  /** Inserts rows inside `tx` (on SQLite, the single connection `tx` also runs on). */
  insert<T extends SeedTable>(tx: Tx, table: T, rows: Selectable<Database[T]>[]): Promise<void>;
  /** Runs `work` in one transaction. */
  transaction(work: (tx: Tx) => Promise<void>): Promise<void>;
  /** Leaves the database as the server expects it (WAL file; statistics on PostgreSQL) and closes. */
  finish(): Promise<void>;
}

/** FTS5's merge of every segment of the search index into one (server/src/search/sqlite-fts.ts). */
export const COMPACT_SEARCH_INDEX = `insert into message_search (message_search) values ('optimize')`;

/**
 * Opens SQLite with the server's settings (foreign keys, busy timeout: src/db/database.ts), except
 * three that only hold while seeding: no rollback journal and no fsync (`journal_mode=OFF`,
 * `synchronous=OFF`: every page is written once, and a crash mid-seed just means seeding again),
 * and a large page cache, so random-id index inserts stay in memory. `finish` switches the file to
 * WAL, the mode the server runs in. The raw handle is kept for prepared inserts, which Kysely would
 * re-prepare on every statement.
 */
function openSqlite(file: string): SeedDb {
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = OFF');
  sqlite.pragma('synchronous = OFF');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('cache_size = -1048576');
  sqlite.pragma('temp_store = MEMORY');
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  const db: Db = {
    kysely,
    dialect: 'sqlite',
    transaction: (work) => kysely.transaction().execute(work),
    writeAlone: async (query) => {
      await kysely.executeQuery(query.compile());
    },
    // The generator has no checkpoint thread and no quiet moments.
    releaseMemory: () => undefined,
    close: () => kysely.destroy(),
  };
  const statements = new Map<string, SQLite.Statement<unknown[]>>();

  return {
    db,
    insert<T extends SeedTable>(_tx: Tx, table: T, rows: Selectable<Database[T]>[]): Promise<void> {
      const columns = Object.keys(COLUMNS[table]) as (keyof Database[T] & string)[];
      let statement = statements.get(table);
      if (statement === undefined) {
        statement = sqlite.prepare<unknown[]>(
          `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
        );
        statements.set(table, statement);
      }
      for (const row of rows) statement.run(...columns.map((c) => (row as Record<string, unknown>)[c] ?? null));
      return Promise.resolve();
    },
    transaction: (work) => kysely.transaction().execute(work),
    async finish() {
      // The full-text index in one segment, the state every run starts from: a run's cleanup merges
      // it again (runner/raw.ts, compactSearchIndex).
      sqlite.exec(COMPACT_SEARCH_INDEX);
      // WAL is stored in the file; the server sets it again on open, along with its other pragmas.
      sqlite.pragma('journal_mode = WAL');
      await db.close();
    },
  };
}

/**
 * PostgreSQL through the server's own pool. Inserts send one typed array per column and unnest
 * them (a few statements per table instead of one per row).
 */
function openPostgres(url: string): SeedDb {
  const db = openDatabase({ kind: 'postgres', url });
  return {
    db,
    async insert<T extends SeedTable>(tx: Tx, table: T, rows: Selectable<Database[T]>[]): Promise<void> {
      const types: Record<string, string> = COLUMNS[table];
      const columns = Object.keys(types) as (keyof Database[T] & string)[];
      for (let i = 0; i < rows.length; i += PG_CHUNK) {
        const chunk = rows.slice(i, i + PG_CHUNK);
        const arrays = columns.map(
          (c) =>
            sql`${chunk.map((row) => (row as Record<string, unknown>)[c] ?? null)}::${sql.raw(types[c] as string)}[]`,
        );
        await sql`
          insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
          select * from unnest(${sql.join(arrays)})`.execute(tx);
      }
    },
    transaction: (work) => db.kysely.transaction().execute(work),
    async finish() {
      // A live instance's autovacuum would have analyzed these tables long ago; without statistics
      // the planner would judge the benchmark's queries on an empty-table guess.
      await sql`vacuum analyze`.execute(db.kysely);
      await db.close();
    },
  };
}

/** Opens the configured database for seeding. */
export function openSeedDb(database: Config['database']): SeedDb {
  return database.kind === 'sqlite' ? openSqlite(database.file) : openPostgres(database.url);
}

/** Drops and creates `name` on the server at `adminUrl`, so every run starts from an empty database. */
export async function recreatePostgresDatabase(adminUrl: string, name: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Unsafe database name ${name}`);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists ${name} with (force)`);
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
}
