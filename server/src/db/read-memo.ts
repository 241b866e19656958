import type { CompiledQuery, QueryResult } from 'kysely';

/** Results a `ReadMemo` keeps, over every statement; past this many it starts again empty. */
export const READ_MEMO_ENTRIES = 2000;

/**
 * Characters of text a `ReadMemo` keeps, over every result (`sizeOf`); past this it starts again
 * empty. A message's text is up to 50,000 characters: 2,000 of them would be 100 million, and the
 * memory target of issue 23 is 150 MB for the whole idle server. Four million characters take 4 to
 * 8 MB (one or two bytes each in V8), and hold the hot page, caller and message reads many times.
 */
export const READ_MEMO_CHARS = 4_000_000;

/**
 * About how many characters a result holds: its strings' lengths, and a few for every other value
 * and field. Only bounds the memo, so it needs to be cheap, not exact; PostgreSQL's JSON columns
 * arrive as objects, which it walks.
 */
export function sizeOf(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 8;
  let size = 8;
  if (Array.isArray(value)) {
    for (const item of value) size += sizeOf(item);
    return size;
  }
  // `for…in`, not Object.entries: a row's fields are its own (rows are plain objects), and every
  // memo read of a post measured its caller's row, a pair array per column.
  for (const key in value) size += key.length + sizeOf((value as Record<string, unknown>)[key]);
  return size;
}

/** Freezes `value` and everything it holds: a kept result is shared by every request that reads it. */
function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
}

/** What tells `query`'s values apart: strings, numbers and nulls, which JSON tells apart exactly. */
export function valuesKey(query: CompiledQuery): string {
  return JSON.stringify(query.parameters);
}

/**
 * The results of some reads, by SQL text and values: what the engine's memo (sqlite-driver.ts,
 * postgres-memo.ts) keeps while it knows that nothing they were read from has changed. It decides
 * when to `clear`; this only keeps, finds and bounds.
 */
export class ReadMemo {
  private entries = 0;
  private chars = 0;
  private readonly bySql = new Map<string, Map<string, QueryResult<unknown>>>();

  /**
   * The result kept for `query`'s SQL and values, if any. `key` is `valuesKey(query)`, which a miss
   * passes on to `set`: a list of a thousand ids is a long text to make twice.
   */
  get<R>(query: CompiledQuery, key: string): QueryResult<R> | undefined {
    return this.bySql.get(query.sql)?.get(key) as QueryResult<R> | undefined;
  }

  /** Keeps `result` for `query`, frozen; a result larger than the whole bound is not kept. */
  set(query: CompiledQuery, result: QueryResult<unknown>, key: string): void {
    const size = sizeOf(result.rows);
    if (size > READ_MEMO_CHARS) return;
    if (this.entries >= READ_MEMO_ENTRIES || this.chars + size > READ_MEMO_CHARS) this.clear();
    deepFreeze(result.rows);
    let results = this.bySql.get(query.sql);
    if (results === undefined) {
      results = new Map();
      this.bySql.set(query.sql, results);
    }
    results.set(key, result);
    this.entries++;
    this.chars += size;
  }

  /** Forgets every result. */
  clear(): void {
    if (this.entries === 0) return;
    this.bySql.clear();
    this.entries = 0;
    this.chars = 0;
  }

  /** How many results are kept (tests). */
  get size(): number {
    return this.entries;
  }
}
