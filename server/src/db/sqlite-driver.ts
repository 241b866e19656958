import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';
import { ReadMemo, valuesKey } from './read-memo.js';

/** What the driver needs of a connection: statements by SQL text (reused, see database.ts). */
export interface StatementSource {
  prepare(sql: string): SQLite.Statement;
  /** Whether the connection has a transaction open (SQLite may end one itself after some errors). */
  inTransaction(): boolean;
  close(): void;
  /** Called after each statement that changed rows (the background checkpointer listens). */
  wrote?(): void;
}

function execute<R>(source: StatementSource, { sql, parameters }: CompiledQuery): QueryResult<R> {
  const statement = source.prepare(sql);
  if (statement.reader) return { rows: statement.all(parameters) as R[] };
  const { changes, lastInsertRowid } = statement.run(parameters);
  // Only what changed rows: an idle server's polls (due jobs, say) change nothing.
  if (changes > 0) source.wrote?.();
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

/**
 * Whether a query outside a transaction can go to the reader: a query-builder SELECT, or raw SQL
 * (the search, for one) that SQLite says reads only and that is a SELECT or a WITH. Raw SQL went to
 * the writer before, so a search waited for every running write and filled the writer's page cache
 * (30 MB of an idle server's memory, bench/README.md). PRAGMAs stay on the writer: they read or set
 * the state of the connection they run on.
 */
function readsOnly(reader: StatementSource, query: CompiledQuery): boolean {
  if (SelectQueryNode.is(query.query)) return true;
  if (!/^\s*(select|with)\b/i.test(query.sql)) return false;
  const statement = reader.prepare(query.sql);
  return statement.reader && statement.readonly;
}

/**
 * The read connection's snapshot: one read transaction for the reads of an event loop turn.
 *
 * A statement outside a transaction takes SQLite's read locks and drops them again (a shared lock
 * on the file, through fcntl, and a WAL read mark): at full scale a group page's four statements
 * made eight fcntl calls, and a statement cost about 3.5 µs more than inside a transaction. Here
 * the first read opens a transaction and the reads that follow share it, until whichever comes
 * first:
 * - the end of the turn (`setImmediate`, after the I/O phase), so the requests that share a
 *   snapshot are those the turn read, which had arrived when the poll that found them returned,
 *   before the snapshot began: none reads a state older than its arrival. The checkpointer is
 *   never kept from the WAL's end for longer than a turn either;
 * - a commit or write of this process on the writer (`ReadWriteSqliteDriver`), so what a request
 *   reads after its own write, or after any write answered meanwhile, is never older than it.
 * Ending it at each request's start instead cost the page and message answers 10–20 % more CPU
 * under load (issue 23): a turn of the benchmark reads many requests.
 */
export class ReadSnapshot {
  private open = false;
  private readonly endSoon = (): void => this.end();
  /** `PRAGMA data_version` of the open snapshot (`memo` below); -1 until a memo read needs it. */
  private version = -1;
  /**
   * The results of the reads a request makes most (`prepared`'s `memo`: the caller of a key, a
   * group's page, a message), for the data version `memoVersion`. SQLite's `PRAGMA data_version`,
   * read on the reader, changes whenever any other connection commits: this process's writer, the
   * admin CLI, another process. A result kept under the version the current snapshot reads is
   * exactly what the statement would answer now; any commit anywhere changes the version and
   * empties the memo. No write has to say what it changed, so no write can forget to (issue 23: the
   * page's three statements took a quarter of its CPU).
   */
  private readonly memo = new ReadMemo();
  private memoVersion = -1;

  constructor(private readonly reader: StatementSource) {}

  /**
   * Runs a read on the reader, inside the turn's read transaction. With `memo`, a read made before
   * with the same SQL and values on the same data answers again without running (`ReadMemo`).
   */
  read<R>(query: CompiledQuery, memo = false): QueryResult<R> {
    if (!this.open) {
      this.reader.prepare('begin').run();
      this.open = true;
      this.version = -1;
      setImmediate(this.endSoon);
    }
    if (!memo) return execute<R>(this.reader, query);
    // Read at the snapshot's first memo read, inside its transaction: the version of what this
    // snapshot sees, which stays the same until it ends (the pragma starts the read if no statement
    // did, as any statement would).
    if (this.version === -1) this.version = this.reader.prepare('pragma data_version').pluck().get() as number;
    if (this.version !== this.memoVersion) {
      this.memo.clear();
      this.memoVersion = this.version;
    }
    const key = valuesKey(query);
    const known = this.memo.get<R>(query, key);
    if (known !== undefined) return known;
    const result = execute<R>(this.reader, query);
    this.memo.set(query, result, key);
    return result;
  }

  /** Forgets the kept results (a quiet server gives their memory back, database.ts). */
  forget(): void {
    this.memo.clear();
  }

  /** Ends the read transaction, if one is open: the next read sees the last commit. */
  end(): void {
    if (!this.open) return;
    this.open = false;
    // A read that failed may have ended the transaction already (SQLite does for a few errors).
    if (this.reader.inTransaction()) this.reader.prepare('commit').run();
  }
}

/** Waiters for the write connection, first come first served. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();

  /** Resolves with the function that releases the lock. */
  lock(): Promise<() => void> {
    let release = (): void => undefined;
    const next = new Promise<void>((resolve) => {
      release = resolve;
    });
    const acquired = this.tail.then(() => release);
    this.tail = this.tail.then(() => next);
    return acquired;
  }
}

/**
 * One SQLite file, two connections: a writer, shared by every transaction and write in turn, and a
 * reader for the reads made outside a transaction (`readsOnly`).
 *
 * Kysely's own SQLite driver has one connection behind a mutex, so every request's first read (the
 * API key lookup) waited for whatever transaction was running. Under a burst of posts no request
 * could reach the write queue while a batch ran, and group commit (`write-batch.ts`) found nothing to
 * group. In WAL mode a reader sees the last commit and never waits for the writer, and no write can
 * go through the reader (`query_only`), so there is still exactly one writer.
 */
export class ReadWriteSqliteDriver implements Driver {
  private readonly writeLock = new Mutex();

  constructor(
    private readonly writer: StatementSource,
    private readonly reader: StatementSource,
    private readonly snapshot: ReadSnapshot,
  ) {}

  async init(): Promise<void> {}

  acquireConnection(): Promise<DatabaseConnection> {
    return Promise.resolve(new RoutedConnection(this.writer, this.reader, this.writeLock, this.snapshot));
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutedConnection).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    // A failed commit leaves the transaction open; Kysely then rolls back, which releases the lock.
    await connection.executeQuery(CompiledQuery.raw('commit'));
    // Reads from now on see this commit (those that follow it in this turn included).
    this.snapshot.end();
    (connection as RoutedConnection).end();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw('rollback'));
    } finally {
      (connection as RoutedConnection).end();
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as RoutedConnection).end();
  }

  async destroy(): Promise<void> {
    this.snapshot.end();
    this.reader.close();
    this.writer.close();
  }
}

/** A connection as Kysely sees it: in a transaction it holds the writer; outside, it routes each query. */
class RoutedConnection implements DatabaseConnection {
  private release: (() => void) | null = null;

  constructor(
    private readonly writer: StatementSource,
    private readonly reader: StatementSource,
    private readonly writeLock: Mutex,
    private readonly snapshot: ReadSnapshot,
  ) {}

  async begin(): Promise<void> {
    const release = await this.writeLock.lock();
    try {
      // IMMEDIATE: the write lock is taken now, waiting (busy_timeout) for another process or the
      // checkpointer's TRUNCATE. A deferred transaction that had already read would instead fail at
      // its first write with SQLITE_BUSY at once, as SQLite cannot wait there without risking deadlock.
      execute(this.writer, CompiledQuery.raw('begin immediate'));
    } catch (error) {
      release();
      throw error;
    }
    this.release = release;
  }

  end(): void {
    this.release?.();
    this.release = null;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.release !== null) return execute<R>(this.writer, query);
    if (readsOnly(this.reader, query)) return this.snapshot.read<R>(query);
    // A write outside a transaction takes its turn on the writer.
    const release = await this.writeLock.lock();
    try {
      return execute<R>(this.writer, query);
    } finally {
      this.snapshot.end();
      release();
    }
  }

  // eslint-disable-next-line require-yield -- no code streams results
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Kith does not stream SQLite results');
  }
}

/**
 * Kysely's SQLite adapter, but saying that DDL is transactional, which it is on SQLite. Kysely's
 * own says it is not, so its migrator ran each SQLite migration outside any transaction: a stop in
 * the middle of one left part of it applied and none of it recorded, and the next start failed on
 * what was already there. Now the pending migrations and their records run in one transaction, as
 * on PostgreSQL (none of Kith's migrations needs a PRAGMA, which a transaction would ignore).
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/** Kysely's SQLite compiler and introspector, an adapter with transactional DDL, on the read/write driver. */
export class ReadWriteSqliteDialect implements Dialect {
  /** The reader's snapshot, shared with `prepared.ts`'s direct reads (database.ts). */
  readonly snapshot: ReadSnapshot;

  constructor(
    private readonly writer: StatementSource,
    private readonly reader: StatementSource,
  ) {
    this.snapshot = new ReadSnapshot(reader);
  }

  createDriver(): Driver {
    return new ReadWriteSqliteDriver(this.writer, this.reader, this.snapshot);
  }

  /**
   * Runs `query` on the writer at once: only for a statement of the write transaction that is open
   * on it (write-batch.ts registers its transactions with `prepared.ts`).
   */
  runInTransaction<R>(query: CompiledQuery): QueryResult<R> {
    return execute<R>(this.writer, query);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
