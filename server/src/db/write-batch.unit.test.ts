import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openTempSqlite, type TempSqlite } from '../../test/sqlite-file.js';
import type { Db } from './database.js';
import { deferToBatchEnd, MAX_BATCH, SqliteWriteBatcher, type BatchEndWork } from './write-batch.js';
import { signal } from '../../test/signal.js';

// Group commit on a real SQLite file (write-batch.ts), through the app's own `Db.transaction`.
describe('SQLite group commit', () => {
  let temp: TempSqlite;
  let db: Db;

  beforeEach(async () => {
    temp = openTempSqlite('kith-batch-');
    db = temp.db;
    await sql`create table items (name text primary key)`.execute(db.kysely);
    // A deferred foreign key is checked at COMMIT: the way to make a commit itself fail.
    await sql`create table links (item text references items (name) deferrable initially deferred)`.execute(db.kysely);
  });

  afterEach(() => temp.remove());

  const names = async (): Promise<string[]> =>
    (await sql<{ name: string }>`select name from items order by name`.execute(db.kysely)).rows.map((r) => r.name);

  const insert = (name: string) => (tx: Db['kysely']) => sql`insert into items (name) values (${name})`.execute(tx);

  /** A transaction that has started and holds the writer until `release()`, so others queue behind it. */
  async function blocker() {
    const gate = signal();
    const running = signal();
    const done = db.transaction(async (tx) => {
      await insert('first')(tx);
      running.resolve();
      await gate.promise;
      return 'first';
    });
    await running.promise;
    return { release: gate.resolve, done };
  }

  it('runs transactions that arrive meanwhile together, in one commit, each with its own answer', async () => {
    const begin = vi.spyOn(db.kysely, 'transaction');
    const first = await blocker();
    const rest = Array.from({ length: 9 }, (_, i) =>
      db.transaction(async (tx) => {
        await insert(`item ${i}`)(tx);
        return i * 10;
      }),
    );
    first.release();
    expect(await first.done).toBe('first');
    expect(await Promise.all(rest)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80]);
    expect(await names()).toHaveLength(10);
    // The first alone, then the nine queued behind it in one SQLite transaction.
    expect(begin).toHaveBeenCalledTimes(2);
  });

  it('rolls back only the unit that throws, with everything it wrote, and rejects only its caller', async () => {
    const first = await blocker();
    const before = db.transaction(insert('before'));
    const failing = db.transaction(async (tx) => {
      await insert('doomed a')(tx);
      await insert('doomed b')(tx);
      throw new Error('changed my mind');
    });
    const duplicate = db.transaction(async (tx) => {
      await insert('dup ok')(tx);
      await insert('before')(tx); // a unique violation after a write of its own
    });
    const after = db.transaction(insert('after'));
    first.release();
    await first.done;
    await expect(failing).rejects.toThrow('changed my mind');
    await expect(duplicate).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    await Promise.all([before, after]);
    expect(await names()).toEqual(['after', 'before', 'first']);
  });

  it('rejects every unit of a batch whose commit fails, and writes none of it', async () => {
    const first = await blocker();
    const good = db.transaction(insert('good'));
    const breaksCommit = db.transaction((tx) => sql`insert into links (item) values ('nowhere')`.execute(tx));
    first.release();
    await first.done;
    await expect(good).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    await expect(breaksCommit).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    expect(await names()).toEqual(['first']);
    // The connection is usable again.
    await db.transaction(insert('later'));
    expect(await names()).toEqual(['first', 'later']);
  });

  it('lets transactions queued in the same turn of the event loop share the first commit', async () => {
    const begin = vi.spyOn(db.kysely, 'transaction');
    await Promise.all([db.transaction(insert('a')), db.transaction(insert('b')), db.transaction(insert('c'))]);
    expect(await names()).toEqual(['a', 'b', 'c']);
    expect(begin).toHaveBeenCalledTimes(1);
  });

  describe('work left for the end of a batch', () => {
    // Each item is a name, inserted at the batch's end; `seen` records every flush and whether the
    // units' rows were there yet (the flush runs inside the same transaction, after them).
    const seen: { items: string[]; rowsThen: string[] }[] = [];
    const atEnd: BatchEndWork<string> = {
      async flush(tx, items) {
        const rowsThen = (await sql<{ name: string }>`select name from items order by name`.execute(tx)).rows;
        seen.push({ items, rowsThen: rowsThen.map((r) => r.name) });
        for (const item of items) await insert(item)(tx);
      },
    };
    const unit = (name: string, fail = false) =>
      db.transaction(async (tx) => {
        await insert(name)(tx);
        const deferred = deferToBatchEnd(tx, atEnd, `${name} later`);
        if (fail) throw new Error(`${name} failed`);
        return deferred;
      });

    beforeEach(() => {
      seen.length = 0;
    });

    it('runs once after every unit, in their order, inside the transaction, without the units that failed', async () => {
      const first = await blocker();
      const a = unit('a');
      const b = unit('b', true);
      const c = unit('c');
      first.release();
      await first.done;
      expect(await a).toBe(true);
      await expect(b).rejects.toThrow('b failed');
      expect(await c).toBe(true);
      expect(seen).toEqual([{ items: ['a later', 'c later'], rowsThen: ['a', 'c', 'first'] }]);
      expect(await names()).toEqual(['a', 'a later', 'c', 'c later', 'first']);
    });

    it('is refused to a transaction of its own, whose caller then writes at once', async () => {
      expect(await unit('alone')).toBe(false);
      expect(seen).toEqual([]);
      expect(await names()).toEqual(['alone']);
    });

    it('fails the whole batch when it throws, and nothing of the batch is written', async () => {
      const broken: BatchEndWork<string> = {
        flush: () => Promise.reject(new Error('index full')),
      };
      const first = await blocker();
      const units = ['x', 'y'].map((name) =>
        db.transaction(async (tx) => {
          await insert(name)(tx);
          deferToBatchEnd(tx, broken, name);
        }),
      );
      first.release();
      await first.done;
      for (const done of units) await expect(done).rejects.toThrow('index full');
      expect(await names()).toEqual(['first']);
    });
  });

  it(`splits a long queue into batches of at most ${MAX_BATCH}`, async () => {
    const begin = vi.spyOn(db.kysely, 'transaction');
    const first = await blocker();
    const queued = Array.from({ length: MAX_BATCH + 1 }, (_, i) => db.transaction(insert(`q${i}`)));
    first.release();
    await Promise.all([first.done, ...queued]);
    expect(await names()).toHaveLength(MAX_BATCH + 2);
    expect(begin).toHaveBeenCalledTimes(3);
  });

  it('waits for a pause before a batch, with no write transaction open, and reads go on meanwhile', async () => {
    await db.transaction(insert('before'));
    const pause = signal();
    let pauses = 0;
    let pending: Promise<void> | null = pause.promise;
    const batcher = new SqliteWriteBatcher(db.kysely, () => {
      pauses += 1;
      const current = pending;
      pending = null;
      return current;
    });
    let written = false;
    const write = batcher.run(insert('during')).then(() => {
      written = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written).toBe(false);
    expect(await names()).toEqual(['before']);
    // Nothing holds the write lock during the pause: another connection writes without waiting.
    const other = new SQLite(temp.file);
    other.pragma('busy_timeout = 0');
    other.prepare(`insert into items (name) values ('other')`).run();
    other.close();
    pause.resolve();
    await write;
    expect(await names()).toEqual(['before', 'during', 'other']);
    expect(pauses).toBeGreaterThanOrEqual(1);
  });

  it('asks for a pause on wake() with nothing queued', async () => {
    const asked: number[] = [];
    const batcher = new SqliteWriteBatcher(db.kysely, () => {
      asked.push(Date.now());
      return null;
    });
    batcher.wake();
    batcher.wake();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toHaveLength(1);
    await batcher.run(insert('x'));
    expect(await names()).toEqual(['x']);
  });
});
