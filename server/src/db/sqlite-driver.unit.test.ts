import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTempSqlite, type TempSqlite } from '../../test/sqlite-file.js';
import type { Db } from './database.js';
import { prepared } from './prepared.js';
import { READ_MEMO_ENTRIES } from './read-memo.js';
import { signal } from '../../test/signal.js';

/** Resolves in the next turn of the event loop, after its I/O phase. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

// A prepared read, which skips Kysely's connection provider on the read connection (prepared.ts).
const preparedNames = prepared((db) => db.selectFrom('items' as never).select('name' as never));
// The same read, kept for the data it was read from (sqlite-driver.ts, `ReadMemo`).
const memoNames = prepared((db) => db.selectFrom('items' as never).select('name' as never), { memo: true });
const memoNamed = prepared(
  (db, name: string) =>
    db
      .selectFrom('items' as never)
      .select('name' as never)
      .where('name' as never, '=', name as never),
  { memo: true },
);

// The read/write SQLite driver (sqlite-driver.ts) on a real file, through the app's `Db`.
describe('SQLite reader and writer connections', () => {
  let temp: TempSqlite;
  let db: Db;

  beforeEach(async () => {
    temp = openTempSqlite('kith-driver-');
    db = temp.db;
    await sql`create table items (name text primary key)`.execute(db.kysely);
  });

  afterEach(() => temp.remove());

  const items = async (): Promise<string[]> =>
    (await sql<{ name: string }>`select name from items order by name`.execute(db.kysely)).rows.map((r) => r.name);

  /** A transaction that wrote `name` and stays open until `release()`. */
  function openTransaction(name: string) {
    const gate = signal();
    const written = signal();
    const done = db.kysely.transaction().execute(async (tx) => {
      await sql`insert into items (name) values (${name})`.execute(tx);
      written.resolve();
      await gate.promise;
    });
    return { release: gate.resolve, written: written.promise, done };
  }

  it('answers a SELECT while a transaction is open, with the last committed state', async () => {
    await sql`insert into items (name) values ('committed')`.execute(db.kysely);
    const open = openTransaction('pending');
    await open.written;
    // A query builder SELECT goes to the reader: it does not wait, and it does not see 'pending'.
    const rows = await db.kysely
      .selectFrom(sql<{ name: string }>`items`.as('i'))
      .select('i.name')
      .execute();
    expect(rows.map((r) => r.name)).toEqual(['committed']);
    open.release();
    await open.done;
    expect(await items()).toEqual(['committed', 'pending']);
  });

  it('answers a raw read-only SELECT or WITH while a transaction is open; a raw WITH that writes waits', async () => {
    await sql`insert into items (name) values ('committed')`.execute(db.kysely);
    const open = openTransaction('pending');
    await open.written;
    const plain = await sql<{ name: string }>`select name from items order by name`.execute(db.kysely);
    expect(plain.rows.map((r) => r.name)).toEqual(['committed']);
    const cte = await sql<{ n: number }>`
      with named as materialized (select name from items) select count(*) as n from named`.execute(db.kysely);
    expect(cte.rows[0]?.n).toBe(1);
    let wrote = false;
    const write = sql`with extra (name) as (select 'cte') insert into items (name) select name from extra`
      .execute(db.kysely)
      .then(() => {
        wrote = true;
      });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(wrote).toBe(false);
    open.release();
    await Promise.all([open.done, write]);
    expect(await items()).toEqual(['committed', 'cte', 'pending']);
  });

  it('makes a write outside a transaction wait for the open one, then run', async () => {
    const open = openTransaction('first');
    await open.written;
    let ran = false;
    const write = sql`insert into items (name) values ('second')`.execute(db.kysely).then(() => {
      ran = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ran).toBe(false);
    open.release();
    await Promise.all([open.done, write]);
    expect(await items()).toEqual(['first', 'second']);
  });

  it('releases the writer after a failed transaction', async () => {
    await expect(
      db.kysely.transaction().execute(async (tx) => {
        await sql`insert into items (name) values ('gone')`.execute(tx);
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    await sql`insert into items (name) values ('next')`.execute(db.kysely);
    expect(await items()).toEqual(['next']);
  });

  describe('the read snapshot of a turn', () => {
    let other: SQLite.Database;
    beforeEach(() => {
      // Another process's connection (the admin CLI, say), which this process is not told of.
      other = new SQLite(temp.file);
    });
    afterEach(() => other.close());

    const preparedItems = async (): Promise<string[]> =>
      ((await preparedNames(db.kysely)) as { name: string }[]).map((r) => r.name).sort();

    it('shares one read transaction among the reads of a turn, and takes a new one in the next', async () => {
      await sql`insert into items (name) values ('first')`.execute(db.kysely);
      await nextTurn();
      expect(await items()).toEqual(['first']);
      other.prepare(`insert into items (name) values ('outside')`).run();
      // Still the turn's snapshot, through Kysely's provider and through a prepared read alike.
      expect(await items()).toEqual(['first']);
      expect(await preparedItems()).toEqual(['first']);
      await nextTurn();
      expect(await items()).toEqual(['first', 'outside']);
      expect(await preparedItems()).toEqual(['first', 'outside']);
    });

    it("ends the turn's snapshot at each write or commit of this process, so later reads see it", async () => {
      expect(await preparedItems()).toEqual([]);
      await sql`insert into items (name) values ('written')`.execute(db.kysely);
      expect(await preparedItems()).toEqual(['written']);
      await db.kysely.transaction().execute(async (tx) => {
        await sql`insert into items (name) values ('committed')`.execute(tx);
      });
      expect(await items()).toEqual(['committed', 'written']);
      // A transaction of the write batcher (db.transaction), answered after its commit.
      await db.transaction(async (tx) => {
        await sql`insert into items (name) values ('batched')`.execute(tx);
      });
      expect(await preparedItems()).toEqual(['batched', 'committed', 'written']);
    });

    it('leaves no read transaction open after the turn, so a checkpoint can reset the WAL', async () => {
      await sql`insert into items (name) values ('first')`.execute(db.kysely);
      expect(await items()).toEqual(['first']);
      await nextTurn();
      const [row] = other.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      expect(row?.busy).toBe(0);
    });

    it('answers a failed prepared read with a rejection, and reads on afterwards', async () => {
      const missing = prepared((kysely) => kysely.selectFrom('nothing' as never).select('name' as never));
      await expect(missing(db.kysely)).rejects.toThrow(/no such table/);
      await sql`insert into items (name) values ('after')`.execute(db.kysely);
      expect(await preparedItems()).toEqual(['after']);
    });

    describe('a memo read', () => {
      const names = async (): Promise<string[]> =>
        ((await memoNames(db.kysely)) as { name: string }[]).map((r) => r.name).sort();

      it('answers the same frozen rows while nothing is committed, across turns', async () => {
        await sql`insert into items (name) values ('a')`.execute(db.kysely);
        const first = await memoNames(db.kysely);
        await nextTurn();
        const again = await memoNames(db.kysely);
        // The very same array: the statement did not run again.
        expect(again).toBe(first);
        expect(Object.isFrozen(again)).toBe(true);
        expect(Object.isFrozen(again[0])).toBe(true);
        // Another value is another read.
        expect(await memoNamed(db.kysely, 'a')).toEqual([{ name: 'a' }]);
        expect(await memoNamed(db.kysely, 'b')).toEqual([]);
      });

      it('reads again after each write or commit of this process, in the same turn', async () => {
        expect(await names()).toEqual([]);
        await sql`insert into items (name) values ('written')`.execute(db.kysely);
        expect(await names()).toEqual(['written']);
        await db.kysely.transaction().execute(async (tx) => {
          await sql`insert into items (name) values ('committed')`.execute(tx);
        });
        expect(await names()).toEqual(['committed', 'written']);
        expect(await memoNamed(db.kysely, 'batched')).toEqual([]);
        await db.transaction(async (tx) => {
          await sql`insert into items (name) values ('batched')`.execute(tx);
        });
        expect(await memoNamed(db.kysely, 'batched')).toEqual([{ name: 'batched' }]);
        await db.transaction(async (tx) => {
          await sql`delete from items where name = 'written'`.execute(tx);
        });
        expect(await names()).toEqual(['batched', 'committed']);
      });

      it("reads again after another connection's commit, from the next snapshot on", async () => {
        expect(await names()).toEqual([]);
        await nextTurn();
        expect(await names()).toEqual([]);
        other.prepare(`insert into items (name) values ('outside')`).run();
        // The turn's snapshot still sees the state the kept rows were read from.
        expect(await names()).toEqual([]);
        await nextTurn();
        expect(await names()).toEqual(['outside']);
        other.prepare(`update items set name = 'renamed'`).run();
        await nextTurn();
        expect(await names()).toEqual(['renamed']);
        expect(await memoNamed(db.kysely, 'outside')).toEqual([]);
      });

      it('stays right past its size, starting again empty', async () => {
        await sql`insert into items (name) values ('kept')`.execute(db.kysely);
        for (let i = 0; i <= READ_MEMO_ENTRIES; i++) await memoNamed(db.kysely, `n${i}`);
        expect(await memoNamed(db.kysely, 'kept')).toEqual([{ name: 'kept' }]);
        other.prepare(`delete from items`).run();
        await nextTurn();
        expect(await memoNamed(db.kysely, 'kept')).toEqual([]);
      });

      it('is never used inside a transaction, which reads its own writes', async () => {
        await sql`insert into items (name) values ('before')`.execute(db.kysely);
        expect(await names()).toEqual(['before']);
        await db.kysely.transaction().execute(async (tx) => {
          await sql`insert into items (name) values ('inside')`.execute(tx);
          expect(((await memoNames(tx)) as { name: string }[]).map((r) => r.name).sort()).toEqual(['before', 'inside']);
        });
      });
    });
  });
});
