import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_DIALECT, type TestApp } from '../../test/harness.js';
import { prepared, preparedInsert, preparedQuery, runCompiled, statementName } from './prepared.js';
import { writeChain } from './postgres-chain.js';

// Prepared reads (prepared.ts) on the engine of this run: each call must return what the same
// query built for its own values returns, whatever the values, list lengths and nulls.
describe('prepared queries, on the real database', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
    await sql`create table prepared_items (id text primary key, tag text, n integer)`.execute(t.ctx.db.kysely);
    await sql`insert into prepared_items (id, tag, n) values ('a', 'x', 1), ('b', 'y', 2), ('c', null, 3), ('d', 'x', 4)`.execute(
      t.ctx.db.kysely,
    );
  });
  afterAll(() => t.close());

  // The test table is not in the schema's types: the query goes through a handle that knows it.
  type Row = { id: string };
  type Items = Kysely<{ prepared_items: { id: string; tag: string | null; n: number } }>;
  const items = prepared((db, tag: string | null, ids: string[], limit: number) => {
    const untyped = db as unknown as Items;
    return untyped
      .selectFrom('prepared_items')
      .select('id')
      .$if(tag === null, (q) => q.where('tag', 'is', null))
      .$if(tag !== null, (q) => q.where('tag', '=', tag))
      .$if(ids.length > 0, (q) => q.where('id', 'not in', ids))
      .orderBy('n')
      .limit(limit);
  });
  const ids = (rows: Row[]) => rows.map((r) => r.id);

  it('binds each call its own values into the one compiled query', async () => {
    const db = t.ctx.db.kysely;
    expect(ids(await items(db, 'x', [], 10))).toEqual(['a', 'd']);
    expect(ids(await items(db, 'y', [], 10))).toEqual(['b']);
    expect(ids(await items(db, 'x', [], 1))).toEqual(['a']);
  });

  it('compiles again for another shape: a null, a list of another length', async () => {
    const db = t.ctx.db.kysely;
    expect(ids(await items(db, null, [], 10))).toEqual(['c']);
    expect(ids(await items(db, 'x', ['a'], 10))).toEqual(['d']);
    expect(ids(await items(db, 'x', ['d'], 10))).toEqual(['a']);
    expect(ids(await items(db, 'x', ['a', 'd'], 10))).toEqual([]);
    expect(ids(await items(db, 'x', [], 10))).toEqual(['a', 'd']);
  });

  it('runs inside a transaction and sees its writes', async () => {
    const seen = await t.ctx.db.transaction(async (tx) => {
      await sql`insert into prepared_items (id, tag, n) values ('e', 'y', 5)`.execute(tx);
      return ids(await items(tx, 'y', [], 10));
    });
    expect(seen).toEqual(['b', 'e']);
  });

  it.runIf(TEST_DIALECT === 'postgres')(
    'goes to PostgreSQL as a named statement, parsed once per connection',
    async () => {
      const named = await t.ctx.db.transaction(async (tx) => {
        await items(tx, 'x', [], 10);
        const { rows } = await sql<{
          name: string;
          statement: string;
        }>`select name, statement from pg_prepared_statements`.execute(tx);
        return rows;
      });
      const text = named.find(
        (r) => r.name === statementName(named.find((n) => n.statement.includes('prepared_items'))?.statement ?? ''),
      );
      expect(text?.statement).toContain('"prepared_items"');
    },
  );

  it('writes each call its own values through a chain of writes, nulls and lists included', async () => {
    const insert = preparedQuery((db, id: string, tag: string | null, n: number) =>
      (db as unknown as Items).insertInto('prepared_items').values({ id, tag, n }),
    );
    const retag = preparedQuery((db, tag: string, keys: string[]) =>
      (db as unknown as Items).updateTable('prepared_items').set({ tag }).where('id', 'in', keys),
    );
    const read = preparedQuery((db, keys: string[]) =>
      (db as unknown as Items).selectFrom('prepared_items').select(['id', 'tag']).where('id', 'in', keys).orderBy('n'),
    );
    const keys = ['c', 'w1', 'w2'];
    const rows = await t.ctx.db.transaction(async (tx) => {
      const writes = writeChain(tx);
      await writes.write(insert(tx, 'w1', 'z', 11));
      await writes.write(insert(tx, 'w2', null, 12));
      await writes.write(retag(tx, 'q', ['c']));
      return writes.read(read(tx, keys));
    });
    // On PostgreSQL the three writes and the read are one statement, on one snapshot: the read sees
    // none of them. On SQLite each ran when it was queued.
    const written = [
      { id: 'c', tag: 'q' },
      { id: 'w1', tag: 'z' },
      { id: 'w2', tag: null },
    ];
    expect(rows).toEqual(TEST_DIALECT === 'postgres' ? [{ id: 'c', tag: null }] : written);
    expect((await runCompiled(t.ctx.db.kysely, read(t.ctx.db.kysely, keys).compile())).rows).toEqual(written);
  });

  it('rolls back what a failed transaction wrote through prepared writes, beside one that commits', async () => {
    const insert = preparedQuery((db, id: string) =>
      (db as unknown as Items).insertInto('prepared_items').values({ id, tag: 'rolled', n: 31 }),
    );
    // Started together, so on SQLite they share one batch (write-batch.ts): savepoints, one commit.
    const [failed, kept] = await Promise.allSettled([
      t.ctx.db.transaction(async (tx) => {
        await runCompiled(tx, insert(tx, 'gone').compile());
        throw new Error('the unit fails after its write');
      }),
      t.ctx.db.transaction((tx) => runCompiled(tx, insert(tx, 'kept').compile())),
    ]);
    expect(failed.status).toBe('rejected');
    expect(kept.status).toBe('fulfilled');
    const { rows } = await sql<{ id: string }>`select id from prepared_items where tag = 'rolled'`.execute(
      t.ctx.db.kysely,
    );
    expect(rows).toEqual([{ id: 'kept' }]);
  });

  it('inserts a whole row, every column named, and refuses a list that leaves one out', async () => {
    const insertFile = preparedInsert('prepared_items' as never, ['id', 'tag', 'n'] as never);
    // A schema table: a column left out does not compile.
    // @ts-expect-error -- `pin_order` (and others) of messages are missing
    preparedInsert('messages', ['id', 'group_id']);
    const row = { id: 'r1', tag: 'whole', n: 21 };
    await t.ctx.db.transaction((tx) => runCompiled(tx, insertFile(tx, row as never).compile()));
    const { rows } = await sql<{ tag: string }>`select tag from prepared_items where id = 'r1'`.execute(
      t.ctx.db.kysely,
    );
    expect(rows).toEqual([{ tag: 'whole' }]);
  });

  it('refuses a builder that computes with an argument instead of binding it', async () => {
    const wrong = prepared((db, n: number) =>
      db
        .selectFrom('users')
        .select('id')
        .limit(n + 1),
    );
    await expect(wrong(t.ctx.db.kysely, 1)).rejects.toThrow('did not bind one of its arguments');
  });
});
