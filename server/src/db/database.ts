import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

/** The database handle the app uses: a Kysely instance plus which engine is behind it. */
export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

// PostgreSQL returns BIGINT (our millisecond timestamps) as strings by default; they fit in a
// JavaScript number until the year 287396, so read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/** Opens the configured database: SQLite (WAL, foreign keys, busy timeout) or PostgreSQL. */
export function openDatabase(database: Config['database']): Db {
  if (database.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: database.url, max: 10 });
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { kysely, dialect: 'postgres', close: () => kysely.destroy() };
  }
  if (database.file !== ':memory:') mkdirSync(path.dirname(database.file), { recursive: true });
  const sqlite = new SQLite(database.file);
  // WAL lets readers run while one writer writes, and lets the admin CLI work beside the server.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // A second process (the CLI) may hold the write lock briefly; wait instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: reusingStatements(sqlite) }) });
  return { kysely, dialect: 'sqlite', close: () => kysely.destroy() };
}

/** Statements kept per SQL text; past this many, the oldest is dropped. */
const STATEMENT_CACHE = 500;

/**
 * Kysely's SQLite driver prepares every query again, which took about 15 % of the server's CPU in
 * the benchmark (bench/README.md). This keeps each prepared statement for its SQL text. Kysely runs
 * a statement to completion before the next query (no code streams results), so reuse is safe, and
 * SQLite re-prepares a statement by itself when a migration changes the schema.
 */
function reusingStatements(sqlite: SQLite.Database): { close(): void; prepare(sql: string): SQLite.Statement } {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string): SQLite.Statement {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = sqlite.prepare(sql);
        if (statements.size >= STATEMENT_CACHE) statements.delete(statements.keys().next().value as string);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

/** True when a write failed on a unique index, on either engine. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
