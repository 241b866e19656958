import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_DIALECT, type TestApp } from '../../test/harness.js';
import { loadPg } from './database.js';

// PostgreSQL's connections are pipelined (database.ts, namingPrepared): a transaction's BEGIN is not
// awaited, its first statement leaves right behind it and answers for both.
describe.runIf(TEST_DIALECT === 'postgres')('a transaction’s BEGIN on PostgreSQL', () => {
  let t: TestApp;
  const client = () => loadPg().Client.prototype;
  // The driver's own method, put back after each test; it is called with its client as `this`.
  let query: (...args: unknown[]) => Promise<unknown>;

  beforeAll(async () => {
    t = await createTestApp();
    query = Reflect.get(client(), 'query');
  });
  afterEach(() => {
    client().query = query as ReturnType<typeof client>['query'];
  });
  afterAll(() => t.close());

  const textOf = (args: unknown[]): string => {
    const first = args[0] as string | { text?: string };
    return typeof first === 'string' ? first : (first.text ?? '');
  };

  it('sends the first statement before BEGIN is answered, on a pipelined connection', async () => {
    const seen: string[] = [];
    // The transaction's connection: the one that sends BEGIN (others may serve background work).
    const mine = new Set<unknown>();
    client().query = function (this: { pipeline: boolean }, ...args: unknown[]) {
      const text = textOf(args);
      if (text === 'begin' && mine.size === 0) mine.add(this);
      if (!mine.has(this)) return query.apply(this, args);
      seen.push(`sent ${text}${this.pipeline ? '' : ' (not pipelined)'}`);
      const running = query.apply(this, args);
      void running.then(
        () => seen.push(`answered ${text}`),
        () => seen.push(`failed ${text}`),
      );
      return running;
    } as ReturnType<typeof client>['query'];
    const rows = await t.ctx.db.transaction(
      async (tx) => (await sql<{ n: number }>`select 41 + 1 as n`.execute(tx)).rows,
    );
    expect(rows).toEqual([{ n: 42 }]);
    expect(seen).toEqual([
      'sent begin',
      'sent select 41 + 1 as n',
      'answered begin',
      'answered select 41 + 1 as n',
      'sent commit',
      'answered commit',
    ]);
  });

  it('fails the transaction with the error of a BEGIN that failed, and the connection serves the next one', async () => {
    client().query = function (this: unknown, ...args: unknown[]) {
      if (textOf(args) === 'begin') return Promise.reject(new Error('BEGIN refused'));
      return query.apply(this, args);
    } as ReturnType<typeof client>['query'];
    await expect(t.ctx.db.transaction((tx) => sql`select 1`.execute(tx))).rejects.toThrow('BEGIN refused');
    client().query = query as ReturnType<typeof client>['query'];
    // Every connection of the pool still works, each in a transaction of its own.
    const ids = await Promise.all(
      Array.from({ length: 12 }, () =>
        t.ctx.db.transaction(async (tx) => {
          const [row] = (
            await sql<{
              pid: number;
              xid: string;
            }>`select pg_backend_pid() as pid, txid_current()::text as xid`.execute(tx)
          ).rows;
          const [again] = (await sql<{ xid: string }>`select txid_current()::text as xid`.execute(tx)).rows;
          return row !== undefined && row.xid === again?.xid ? row.xid : null;
        }),
      ),
    );
    expect(ids.every((id) => id !== null)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
