import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type Compilable,
  type PostgresPool,
  type PostgresPoolClient,
} from 'kysely';
import type pg from 'pg';
import { lazyModule } from '../lib/lazy-module.js';
import type { Config } from '../config.js';
import { BackgroundCheckpointer } from './checkpointer.js';
import type { Database } from './schema.js';
import { ChangeNotices, ChangeTracker, NOTICES_APPLICATION_NAME, PostgresReadMemo } from './postgres-memo.js';
import { readDirectly, readThroughMemo, statementName } from './prepared.js';
import { ReadWriteSqliteDialect, type StatementSource } from './sqlite-driver.js';
import { SqliteWriteBatcher } from './write-batch.js';

export type Dialect = 'sqlite' | 'postgres';

/** The database handle the app uses: a Kysely instance plus which engine is behind it. */
export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /**
   * Runs `work` in a transaction: its own on PostgreSQL; on SQLite possibly shared with others that
   * arrived meanwhile, each in its own savepoint (group commit, `write-batch.ts`).
   */
  transaction<T>(work: (tx: Kysely<Database>) => Promise<T>): Promise<T>;
  /**
   * Runs one statement that writes, as a transaction of its own: on PostgreSQL alone (a statement
   * is atomic by itself; BEGIN and COMMIT would be two more round trips), on SQLite through
   * `transaction`, sharing a commit with the writes around it. Settles after the commit.
   */
  writeAlone(query: Compilable<unknown>): Promise<void>;
  /**
   * Stops the thread that checkpoints SQLite's WAL if nothing is due and empties SQLite's page
   * caches (nothing on PostgreSQL): called when the server's requests have paused
   * (lib/quiet-reclaim.ts).
   */
  releaseMemory(): void;
  close(): Promise<void>;
}

const pgModule = lazyModule<typeof pg>('pg');
let bigintsAsNumbers = false;

/** The pg driver, loaded with the first PostgreSQL connection (a server on SQLite never needs it). */
export function loadPg(): typeof pg {
  const driver = pgModule();
  if (!bigintsAsNumbers) {
    // PostgreSQL returns BIGINT (our millisecond timestamps) as strings by default; they fit in a
    // JavaScript number until the year 287396, so read them as numbers.
    driver.types.setTypeParser(driver.types.builtins.INT8, (value: string) => Number(value));
    bigintsAsNumbers = true;
  }
  return driver;
}

/** For tests: how long PostgreSQL's memo keeps a result, and waits before listening again. */
export interface MemoOptions {
  memoMs?: number;
  noticeRetryMs?: number;
}

/** Opens the configured database: SQLite (WAL, foreign keys, busy timeout) or PostgreSQL. */
export function openDatabase(database: Config['database'], options: MemoOptions = {}): Db {
  if (database.kind === 'postgres') {
    const memo = new PostgresReadMemo(options.memoMs);
    const notices = new ChangeNotices(
      () =>
        new (loadPg().Client)({
          connectionString: database.url,
          application_name: NOTICES_APPLICATION_NAME,
          // Closing waits for a connection being opened: never for longer than this. Keepalive
          // finds a vanished server, so the memo stops being used.
          connectionTimeoutMillis: 5000,
          keepAlive: true,
        }),
      memo,
      options.noticeRetryMs,
    );
    // Pipelined: a transaction's BEGIN goes with its first statement (namingPrepared below).
    const pool = new (loadPg().Pool)({ connectionString: database.url, max: 10, pipeline: true });
    const kysely = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: namingPrepared(pool, () => notices.changed()) }),
    });
    readThroughMemo(kysely, (query, run) => memo.read(query, run));
    return {
      kysely,
      dialect: 'postgres',
      transaction: (work) => kysely.transaction().execute(work),
      writeAlone: async (query) => {
        await kysely.executeQuery(query.compile());
      },
      // Kept results are read again when needed: a quiet server keeps none.
      releaseMemory: () => memo.changed(),
      close: async () => {
        await kysely.destroy();
        // After the last write: its notice goes before the connection closes.
        await notices.close();
      },
    };
  }
  if (database.file !== ':memory:') mkdirSync(path.dirname(database.file), { recursive: true });
  const writer = new SQLite(database.file);
  // WAL lets readers run while one writer writes, and lets the admin CLI work beside the server.
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = NORMAL');
  writer.pragma('foreign_keys = ON');
  // A second process (the CLI) may hold the write lock briefly; wait instead of failing.
  writer.pragma('busy_timeout = 5000');
  // Two connections to ':memory:' would be two databases.
  const reader = database.file === ':memory:' ? null : openReader(database.file);
  const dialect =
    reader === null
      ? new SqliteDialect({ database: reusingStatements(writer) })
      : new ReadWriteSqliteDialect(
          reusingStatements(writer, () => checkpointer?.wrote()),
          reusingStatements(reader),
        );
  const kysely = new Kysely<Database>({ dialect });
  const snapshot = dialect instanceof ReadWriteSqliteDialect ? dialect.snapshot : null;
  if (snapshot !== null) readDirectly(kysely, (query, memo) => snapshot.read(query, memo));
  let checkpointer: BackgroundCheckpointer | null = null;
  const batcher = new SqliteWriteBatcher(
    kysely,
    () => checkpointer?.truncateIfDue() ?? null,
    dialect instanceof ReadWriteSqliteDialect ? (query) => dialect.runInTransaction(query) : null,
  );
  if (database.file !== ':memory:') {
    checkpointer = checkpointInBackground(writer, database.file, batcher);
    // A WAL left by a crash is copied back now, not at the first write.
    if (statSync(`${database.file}-wal`, { throwIfNoEntry: false })?.size) checkpointer.wrote();
  }
  return {
    kysely,
    dialect: 'sqlite',
    transaction: (work) => batcher.run(work),
    writeAlone: (query) =>
      batcher.run(async (tx) => {
        await tx.executeQuery(query.compile());
      }),
    releaseMemory: () => {
      checkpointer?.stopUnlessDue();
      snapshot?.forget();
      // The page caches go too (up to 8 MiB read, 16 written): the first reads after the pause copy
      // their pages from the system's file cache again, a few µs each. SQLite frees them into
      // glibc's heap, which keeps them until the quiet server trims it (lib/quiet-reclaim.ts,
      // lib/malloc-trim.ts; without the trim, RSS did not move). A connection in a transaction keeps
      // its pages.
      for (const connection of [reader, writer]) {
        if (connection !== null && !connection.inTransaction) connection.pragma('shrink_memory');
      }
    },
    close: async () => {
      await checkpointer?.stop();
      // The last connection to close checkpoints what is left and removes the WAL.
      await kysely.destroy();
    },
  };
}

/**
 * The pool as Kysely uses it, where the SQL of a prepared query (prepared.ts) goes as a named
 * statement: PostgreSQL parses and plans it once per connection, not at every request. Each client
 * keeps one wrapper, as Kysely keeps one connection object per client. Each wrapper watches what
 * its statements change and calls `changed` once a change is committed (postgres-memo.ts).
 */
function namingPrepared(pool: pg.Pool, changed: () => void): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const tracker = new ChangeTracker(changed);
    // The BEGIN sent and not yet awaited (below), which the next statement answers with.
    let begun: Promise<unknown> | null = null;
    return {
      query: ((sqlOrCursor: string | object, parameters?: readonly unknown[]) => {
        // Kith streams nothing; were a cursor opened, what it runs is unknown: counted as a change.
        if (typeof sqlOrCursor !== 'string') {
          changed();
          return client.query(sqlOrCursor as pg.Submittable);
        }
        const name = statementName(sqlOrCursor);
        const running = (
          name === undefined
            ? client.query(sqlOrCursor, parameters as unknown[])
            : client.query({ name, text: sqlOrCursor, values: parameters as unknown[] })
        ).then(
          (result) => {
            tracker.answered(sqlOrCursor, result);
            return result;
          },
          (error: unknown) => {
            tracker.answered(sqlOrCursor, undefined);
            throw error;
          },
        );
        // Kysely awaits BEGIN before the transaction's first statement: a round trip (and a turn of
        // each side's loop) for an answer that says nothing. On the pipelined connection (pool
        // above) it is answered at once, so the first statement leaves right behind it; that
        // statement's answer carries BEGIN's failure, if any (on a lost connection both fail; on
        // a live one BEGIN does not fail, and a statement after a failed one would fail too).
        if (sqlOrCursor === 'begin') {
          running.catch(() => undefined);
          begun = running;
          return Promise.resolve({ command: 'BEGIN', rowCount: null, rows: [], fields: [] });
        }
        const before = begun;
        begun = null;
        return before === null ? running : Promise.all([before, running]).then(([, result]) => result);
      }) as unknown as PostgresPoolClient['query'],
      release: () => client.release(),
    };
  };
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (wrapper === undefined) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

/** Moves checkpoints off the request thread (checkpointer.ts); SQLite's own return if it fails. */
function checkpointInBackground(
  writer: SQLite.Database,
  file: string,
  batcher: SqliteWriteBatcher,
): BackgroundCheckpointer {
  writer.pragma('wal_autocheckpoint = 0');
  return new BackgroundCheckpointer(file, {
    onError: (message) => {
      if (!writer.open) return;
      writer.pragma('wal_autocheckpoint = 1000');
      process.emitWarning(`Background checkpoints failed, SQLite checkpoints in commits again: ${message}`);
    },
    // The WAL is emptied between two batches of writes, or now if none is running.
    onDue: () => batcher.wake(),
  });
}

/**
 * The read connection's page cache, in KiB. better-sqlite3 builds SQLite with 16 MiB per connection,
 * which a few searches fill and keep. The operating system caches the file anyway, but pages read
 * from it cost a copy each: at 4 MiB a search for a word with 1,000 hits took 17 ms instead of 12
 * (bench/README.md). 8 MiB keeps that and half the memory.
 */
export const READER_CACHE_KIB = 8192;

/** The read connection of `sqlite-driver.ts`: it cannot write, and waits like the writer for the CLI. */
function openReader(file: string): SQLite.Database {
  const reader = new SQLite(file);
  reader.pragma('query_only = ON');
  reader.pragma('busy_timeout = 5000');
  reader.pragma(`cache_size = -${READER_CACHE_KIB}`);
  return reader;
}

/**
 * A read-only handle on a SQLite file, for a worker thread that reads beside the server (searches,
 * features/search/worker.ts): WAL lets it read while the server writes, and it sees every commit
 * made before each of its statements. `releaseMemory` empties its page cache.
 */
export function openReadOnly(file: string): { kysely: Kysely<Database>; releaseMemory: () => void } {
  const reader = openReader(file);
  return {
    kysely: new Kysely<Database>({ dialect: new SqliteDialect({ database: reusingStatements(reader) }) }),
    // Its page cache (up to READER_CACHE_KIB), as `releaseMemory` of the server's connections.
    releaseMemory: () => {
      if (reader.open && !reader.inTransaction) reader.pragma('shrink_memory');
    },
  };
}

/** Statements kept per SQL text; past this many, the oldest is dropped. */
const STATEMENT_CACHE = 500;

/**
 * Kysely's SQLite driver prepares every query again, which took about 15 % of the server's CPU in
 * the benchmark (bench/README.md). This keeps each prepared statement for its SQL text. Kysely runs
 * a statement to completion before the next query (no code streams results), so reuse is safe, and
 * SQLite re-prepares a statement by itself when a migration changes the schema.
 */
function reusingStatements(sqlite: SQLite.Database, wrote?: () => void): StatementSource {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    inTransaction: () => sqlite.inTransaction,
    wrote,
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
