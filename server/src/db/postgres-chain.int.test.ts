import { CompiledQuery, sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_DIALECT, type TestApp } from '../../test/harness.js';
import { chained, writeChain } from './postgres-chain.js';
import type { Database } from './schema.js';

// Chained writes (postgres-chain.ts) on the engine of this run: on PostgreSQL they wait for the
// next statement and go with it; on SQLite they run at once. Either way the transaction ends with
// every write done, each with its own values.
describe('a chain of writes, on the real database', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
    await sql`create table chain_items (id text primary key, n integer not null)`.execute(t.ctx.db.kysely);
    await sql`create table chain_notes (item_id text not null references chain_items (id), note text)`.execute(
      t.ctx.db.kysely,
    );
  });
  afterAll(() => t.close());

  // The test tables are not in the schema's types: the queries go through a handle that knows them.
  type Items = Kysely<{
    chain_items: { id: string; n: number };
    chain_notes: { item_id: string; note: string | null };
  }>;
  const untyped = (db: Kysely<Database>) => db as unknown as Items;
  const count = async (db: Kysely<Database>) =>
    Number((await sql<{ n: number | string }>`select count(*) as n from chain_items`.execute(db)).rows[0]?.n);

  it('sends the queued writes with the next read, each with its own values, foreign keys checked together', async () => {
    const rows = await t.ctx.db.transaction(async (tx) => {
      const writes = writeChain(tx);
      await writes.write(untyped(tx).insertInto('chain_items').values({ id: 'a', n: 1 }));
      await writes.write(untyped(tx).insertInto('chain_notes').values({ item_id: 'a', note: 'first' }));
      await writes.write(untyped(tx).insertInto('chain_items').values({ id: 'b', n: 2 }));
      // Not sent yet on PostgreSQL; already written on SQLite.
      expect(await count(tx)).toBe(TEST_DIALECT === 'postgres' ? 0 : 2);
      return writes.read(untyped(tx).selectFrom('chain_items').select('n').where('n', '>', 0));
    });
    // The read ran on the statement's snapshot, before its own writes on PostgreSQL.
    expect(rows.map((r) => r.n)).toEqual(TEST_DIALECT === 'postgres' ? [] : [1, 2]);
    const items = await untyped(t.ctx.db.kysely).selectFrom('chain_items').selectAll().orderBy('id').execute();
    expect(items).toEqual([
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
    ]);
    const notes = await untyped(t.ctx.db.kysely).selectFrom('chain_notes').selectAll().execute();
    expect(notes).toEqual([{ item_id: 'a', note: 'first' }]);
  });

  it('writes what is left at flush, and a write that fails fails the flush and its transaction', async () => {
    await t.ctx.db.transaction(async (tx) => {
      const writes = writeChain(tx);
      await writes.write(untyped(tx).insertInto('chain_items').values({ id: 'c', n: 3 }));
      await writes.write(untyped(tx).updateTable('chain_items').set({ n: 10 }).where('id', '=', 'a'));
      await writes.flush();
      await writes.flush();
    });
    const items = await untyped(t.ctx.db.kysely).selectFrom('chain_items').selectAll().orderBy('id').execute();
    expect(items.map((r) => r.n)).toEqual([10, 2, 3]);

    const failing = t.ctx.db.transaction(async (tx) => {
      const writes = writeChain(tx);
      await writes.write(untyped(tx).insertInto('chain_items').values({ id: 'd', n: 4 }));
      await writes.write(untyped(tx).insertInto('chain_items').values({ id: 'a', n: 5 }));
      await writes.flush();
    });
    await expect(failing).rejects.toThrow();
    expect(await count(t.ctx.db.kysely)).toBe(3);
  });

  it.runIf(TEST_DIALECT === 'postgres')(
    'puts the writes in front of a final statement that has CTEs of its own',
    async () => {
      const rows = await t.ctx.db.transaction(async (tx) => {
        const writes = writeChain(tx);
        await writes.write(untyped(tx).insertInto('chain_items').values({ id: 'e', n: 6 }));
        return writes.read({
          compile: () =>
            sql<{ n: number }>`with wanted as (select ${7}::integer as n) select n from wanted`.compile(tx),
        });
      });
      expect(rows).toEqual([{ n: 7 }]);
      expect(await count(t.ctx.db.kysely)).toBe(4);
    },
  );

  it('refuses a statement whose values are not all numbered parameters', () => {
    const last = CompiledQuery.raw('select 1');
    expect(() => chained([CompiledQuery.raw('insert into t values ($1)', [])], last)).toThrow(/numbered parameter/);
    expect(() => chained([CompiledQuery.raw('insert into t values ($2)', [1])], last)).toThrow(/numbered parameter/);
    expect(() => chained([CompiledQuery.raw('do $$ begin end $$', [])], last)).toThrow(/numbered parameter/);
    expect(
      chained([CompiledQuery.raw('insert into t values ($1, $2)', [1, 2])], CompiledQuery.raw('select $1', [3])),
    ).toMatchObject({
      sql: 'with kith_w0 as (insert into t values ($1, $2)) select $3',
      parameters: [1, 2, 3],
    });
  });
});
