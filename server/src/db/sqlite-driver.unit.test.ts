import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTempSqlite, type TempSqlite } from '../../test/sqlite-file.js';
import type { Db } from './database.js';
import { signal } from '../../test/signal.js';

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
});
