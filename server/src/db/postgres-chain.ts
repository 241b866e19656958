import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { engineOf } from './engine.js';
import { nameStatement, runCompiled } from './prepared.js';

/**
 * Writes of one transaction that nobody reads the result of, sent with the transaction's next
 * statement. On PostgreSQL every statement is a round trip, each costing the server's event loop a
 * socket write and read and the transaction a wait: a post made twelve (bench/README.md, posting on
 * PostgreSQL). Queued writes go as data-modifying CTEs in front of the next read, or of the last of
 * them at `flush`, as one statement. On SQLite a statement is a function call, and each write runs
 * when it is queued.
 *
 * What the caller must keep to, on PostgreSQL:
 * - A queued write has not happened yet: nothing may read or change its rows before the chain is
 *   flushed except through the chain, and a failing write fails the later call that sends it.
 *   Foreign keys between rows of one statement hold: they are checked at the statement's end.
 * - The statements of one chain run on one snapshot and in no set order: no two of them may touch
 *   the same row, and the read sees none of them.
 * - Every value is a bound parameter (as Kysely's builders and `sql` templates bind them): the
 *   `$n` of each text are renumbered into the combined one.
 * - `flush` must run before the transaction commits.
 */
export interface WriteChain {
  /** Queues `query` (SQLite: runs it now). */
  write(query: Compilable<unknown>): Promise<void>;
  /** Runs `query` with the queued writes, in one statement; its rows. */
  read<R>(query: Compilable<R>): Promise<R[]>;
  /** Runs the queued writes. */
  flush(): Promise<void>;
}

/** A chain of writes in `tx` (the transaction they belong to). */
export function writeChain(tx: Kysely<Database>): WriteChain {
  return engineOf(tx) === 'postgres' ? new PostgresWriteChain(tx) : new ImmediateWrites(tx);
}

class ImmediateWrites implements WriteChain {
  constructor(private readonly tx: Kysely<Database>) {}

  async write(query: Compilable<unknown>): Promise<void> {
    await runCompiled(this.tx, query.compile());
  }

  async read<R>(query: Compilable<R>): Promise<R[]> {
    return (await runCompiled(this.tx, query.compile())).rows;
  }

  async flush(): Promise<void> {}
}

class PostgresWriteChain implements WriteChain {
  private queued: CompiledQuery[] = [];

  constructor(private readonly tx: Kysely<Database>) {}

  write(query: Compilable<unknown>): Promise<void> {
    this.queued.push(query.compile());
    return Promise.resolve();
  }

  async read<R>(query: Compilable<R>): Promise<R[]> {
    const last = query.compile();
    const writes = this.queued;
    this.queued = [];
    return (await runCompiled(this.tx, writes.length === 0 ? last : chained(writes, last))).rows;
  }

  async flush(): Promise<void> {
    const last = this.queued.pop();
    if (last === undefined) return;
    await this.read({ compile: () => last });
  }
}

/** `writes` as the CTEs of `last`, parameters renumbered in order, as one named statement. */
export function chained<R>(writes: readonly CompiledQuery[], last: CompiledQuery<R>): CompiledQuery<R> {
  const parameters: unknown[] = [];
  const renumbered = (query: CompiledQuery): string => {
    const text = renumber(query, parameters.length);
    parameters.push(...query.parameters);
    return text;
  };
  const ctes = writes.map((query, index) => `kith_w${index} as (${renumbered(query)})`).join(', ');
  const tail = renumbered(last);
  // A final statement with CTEs of its own gets the writes at the front of its list.
  const leading = /^\s*with\s+(?!recursive\b)/i.exec(tail);
  const sqlText = leading === null ? `with ${ctes} ${tail}` : `with ${ctes}, ${tail.slice(leading[0].length)}`;
  nameStatement(sqlText);
  return CompiledQuery.raw(sqlText, parameters);
}

/** The text of `query` with `$n` as `$(n + offset)`; refuses a text whose `$n` are not its parameters. */
function renumber(query: CompiledQuery, offset: number): string {
  const seen = new Set<number>();
  const text = query.sql.replace(/\$(\d+)/g, (_, n: string) => {
    seen.add(Number(n));
    return `$${Number(n) + offset}`;
  });
  const count = query.parameters.length;
  if (seen.size !== count || [...seen].some((n) => n < 1 || n > count) || query.sql.includes('$$')) {
    throw new Error('A chained statement must bind every value as a numbered parameter');
  }
  return text;
}
