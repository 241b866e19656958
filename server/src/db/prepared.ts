import { SelectQueryNode, type Compilable, type CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import type { Database } from './schema.js';

/** Runs a SELECT at once on a connection that reads beside the writer (SQLite's reader). */
export type DirectRead = (query: CompiledQuery, memo: boolean) => QueryResult<unknown>;

/**
 * The handles whose reads outside a transaction may skip Kysely's connection provider: the SQLite
 * handle of `openDatabase`, whose reads go to the read connection anyway (sqlite-driver.ts). A
 * transaction is another Kysely object, so its reads never come here.
 */
const directReads = new WeakMap<object, DirectRead>();

/** Lets the prepared SELECTs of `kysely` (not of its transactions) run through `read`. */
export function readDirectly(kysely: Kysely<Database>, read: DirectRead): void {
  directReads.set(kysely, read);
}

/** Runs a statement at once in the write transaction a handle stands for (SQLite's writer). */
export type DirectWrite = (query: CompiledQuery) => QueryResult<unknown>;

/**
 * SQLite transactions whose statements may skip Kysely's connection provider, each while it is
 * open (write-batch.ts): the writer answers synchronously, and the provider's queue and promises
 * took a few microseconds of every statement, and a post runs about ten (issue 23).
 */
const directWrites = new WeakMap<object, DirectWrite>();

/** Lets `runCompiled` and prepared queries on `tx` run through `run` until `forgetTransaction`. */
export function runTransactionDirectly(tx: Kysely<Database>, run: DirectWrite): void {
  directWrites.set(tx, run);
}

/** Ends `runTransactionDirectly` for `tx`: call it before the transaction ends. */
export function forgetTransaction(tx: Kysely<Database>): void {
  directWrites.delete(tx);
}

/** Answers a memo read on PostgreSQL: a kept result, or `run`'s (postgres-memo.ts). */
export type MemoRead = (
  query: CompiledQuery,
  run: () => Promise<QueryResult<unknown>>,
) => Promise<QueryResult<unknown>>;

/** The PostgreSQL handles whose memo reads outside a transaction go through their `MemoRead`. */
const memoReads = new WeakMap<object, MemoRead>();

/** Lets the memo reads of `kysely` (not of its transactions) answer through `read`. */
export function readThroughMemo(kysely: Kysely<Database>, read: MemoRead): void {
  memoReads.set(kysely, read);
}

/**
 * What a prepared query's builder may receive for each argument: a value it binds as a parameter, a
 * null (bound or tested with `is`), or a list of values (`in (…)`). The builder must pass values to
 * Kysely as they are, never compute with them or branch on them: it runs once, with placeholders.
 * It may branch on what the shape names: whether an argument is null, and a list's length.
 */
type Arg = string | number | null | readonly (string | number)[];

interface Template {
  compiled: CompiledQuery;
  /** For each parameter of `compiled`: the argument (and list element) it takes, or -1 for a constant. */
  slots: { arg: number; item: number }[];
}

const MAX_SHAPES = 100;

/**
 * The SQL texts of prepared queries, each with a statement name for PostgreSQL (database.ts), which
 * then parses and plans it once per connection instead of at every call. A text keeps its name for
 * the life of the process, so a name never stands for two texts.
 */
const statementNames = new Map<string, string>();
const MAX_STATEMENT_NAMES = 2000;

/** The statement name of a prepared query's SQL text; undefined for any other SQL. */
export function statementName(sqlText: string): string | undefined {
  return statementNames.get(sqlText);
}

/**
 * Gives `sqlText` a statement name, so that PostgreSQL plans it once per connection: for a text run
 * again and again with other values only (a prepared query, a post's chained writes).
 */
export function nameStatement(sqlText: string): void {
  // Past the bound, texts are no longer named (they still run, parsed each time).
  if (!statementNames.has(sqlText) && statementNames.size < MAX_STATEMENT_NAMES) {
    statementNames.set(sqlText, `kith_${statementNames.size + 1}`);
  }
}

// A placeholder no caller passes: parameters carrying it are where the arguments go.
const MARK = '\u0000kith-prepared\u0000';

const shapeOf = (args: readonly Arg[]): string =>
  args.map((a) => (a === null ? 'n' : Array.isArray(a) ? `l${a.length}` : 'v')).join(',');

/** Placeholders in the shape of `args`. */
function placeholders(args: readonly Arg[]): Arg[] {
  return args.map((a, i) =>
    a === null ? null : Array.isArray(a) ? a.map((_, j) => `${MARK}${i}.${j}`) : `${MARK}${i}`,
  );
}

function templateOf(compiled: CompiledQuery, args: readonly Arg[]): Template {
  if (compiled.sql.includes(MARK)) throw new Error('A prepared query wrote an argument into its SQL text');
  const seen = new Set<string>();
  const slots = compiled.parameters.map((p) => {
    if (typeof p !== 'string' || !p.startsWith(MARK)) return { arg: -1, item: -1 };
    seen.add(p);
    const [arg = '', item] = p.slice(MARK.length).split('.');
    return { arg: Number(arg), item: item === undefined ? -1 : Number(item) };
  });
  // An argument the builder used otherwise than as a value (arithmetic, a branch) would be wrong here.
  for (const p of placeholders(args).flat()) {
    if (p !== null && !seen.has(String(p))) throw new Error('A prepared query did not bind one of its arguments');
  }
  return { compiled, slots };
}

/**
 * `build`'s query compiled by Kysely once per engine and argument shape; each call makes only the
 * parameter list of its values. Throws what `build` throws, or a refusal of its arguments' use.
 */
function compiledWith<A extends Arg[], R>(
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
): (db: Kysely<Database>, args: A) => CompiledQuery<R> {
  // Keyed by the dialect's adapter class: one SQL text per engine, shared by transactions.
  const byEngine = new WeakMap<object, Map<string, Template>>();
  return (db, args) => {
    const engine = db.getExecutor().adapter.constructor;
    let templates = byEngine.get(engine);
    if (templates === undefined) {
      templates = new Map();
      byEngine.set(engine, templates);
    }
    const shape = shapeOf(args);
    let template = templates.get(shape);
    if (template === undefined) {
      template = templateOf(build(db, ...(placeholders(args) as A)).compile(), args);
      // Lists of every length make a template each: bounded, as a caller may send any length.
      if (templates.size >= MAX_SHAPES) templates.clear();
      templates.set(shape, template);
      nameStatement(template.compiled.sql);
    }
    const { compiled, slots } = template;
    const parameters = slots.map(({ arg, item }, index) => {
      if (arg === -1) return compiled.parameters[index];
      const value = args[arg];
      return item === -1 ? value : (value as readonly unknown[])[item];
    });
    return { ...compiled, parameters };
  };
}

/**
 * A query for a chain of writes (db/postgres-chain.ts), or to execute: a write, or the read a chain
 * ends with, built and compiled once per engine and argument shape as `prepared` does. Every post
 * built and compiled its writes anew, about a tenth of its time on the main thread with their garbage
 * (bench/README.md, issue 23 fifteenth session). The builder keeps to `prepared`'s rules.
 */
export function preparedQuery<A extends Arg[], R>(
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
): (db: Kysely<Database>, ...args: A) => Compilable<R> {
  const compile = compiledWith(build);
  return (db, ...args) => ({ compile: () => compile(db, args) });
}

/**
 * The insert of one row into `table` with a value for each of its columns, as a `preparedQuery`.
 * `columns` must name every column of the table (it does not compile otherwise): a column added
 * later and left out would silently take its default.
 */
export function preparedInsert<T extends keyof Database, C extends keyof Database[T] & string>(
  table: T,
  columns: readonly C[] & ([Exclude<keyof Database[T], C>] extends [never] ? unknown : 'names every column'),
): (db: Kysely<Database>, row: { readonly [K in C]: string | number | null }) => Compilable<unknown> {
  const insert = preparedQuery((db, ...values: (string | number | null)[]) =>
    // The columns are the caller's list of the table's: Kysely cannot check a row built from it.
    db.insertInto(table).values(Object.fromEntries(columns.map((column, i) => [column, values[i]])) as never),
  );
  return (db, row) => insert(db, ...columns.map((column) => row[column]));
}

/**
 * A read built and compiled by Kysely once per engine and argument shape, then run with each call's
 * values. Building and compiling a query took more CPU than SQLite took to run the group page's
 * queries (bench/README.md): per request, only the parameter list is made.
 *
 * The result has the rows the built query would have returned (no plugin transforms results here).
 */
export function prepared<A extends Arg[], R>(
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
  options: {
    /**
     * A read outside a transaction may answer with the result of the same read made before, while
     * nothing it was read from can have changed: on SQLite for the same data version
     * (sqlite-driver.ts), on PostgreSQL until a change is committed or heard of (postgres-memo.ts).
     * The result is frozen, as every request shares it. For reads many requests make: the caller
     * of a key, a group's page, a message. Only for a read (never a data-modifying CTE).
     */
    memo?: boolean;
  } = {},
): (db: Kysely<Database>, ...args: A) => Promise<R[]> {
  const memo = options.memo === true;
  const compile = compiledWith(build);
  return (db, ...args) => {
    let query: CompiledQuery<R>;
    // A builder refused here rejects the call's promise, as every other failure of a query does.
    try {
      query = compile(db, args);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    // SQLite answers synchronously: Kysely's provider would add an acquire and a release, and four
    // promises, around each statement (issue 23).
    const direct = directReads.get(db);
    if (direct !== undefined && SelectQueryNode.is(query.query)) return settled(() => direct(query, memo).rows as R[]);
    const run = (): Promise<QueryResult<R>> => runCompiled(db, query);
    const viaMemo = memo ? memoReads.get(db) : undefined;
    if (viaMemo !== undefined) return viaMemo(query, run).then((result) => result.rows as R[]);
    return run().then((result) => result.rows);
  };
}

/** What `run` answers, as a promise: a synchronous throw (SQLite's) rejects it, as a query's failure does. */
function settled<T>(run: () => T): Promise<T> {
  try {
    return Promise.resolve(run());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * Runs a compiled query on `db` (a transaction or not). Straight to the connection when no plugin
 * would transform the result (none in Kith): what `db.executeQuery` adds, a random query id and a
 * pass over the plugins, took a few promises per query, and a request makes several (issue 23).
 */
export function runCompiled<R>(db: Kysely<Database>, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  const direct = directWrites.get(db);
  if (direct !== undefined) return settled(() => direct(query) as QueryResult<R>);
  const executor = db.getExecutor();
  return executor.plugins.length > 0
    ? db.executeQuery<R>(query)
    : executor.provideConnection((connection) => connection.executeQuery<R>(query));
}
