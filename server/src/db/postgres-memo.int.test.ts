import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, TEST_DIALECT, type TestApp } from '../../test/harness.js';
import { TEST_DB_PREFIX, urlForDatabase, withAdmin } from '../../test/postgres.js';
import { loadPg, openDatabase, type Db } from './database.js';
import { NOTICES_APPLICATION_NAME } from './postgres-memo.js';
import { prepared } from './prepared.js';
import type { Database } from './schema.js';

// PostgreSQL's memo (postgres-memo.ts) with two handles on one database, as two processes of a
// scale-out set: `a` keeps what it reads; `b` writes through Kith, so it tells; `raw` writes past
// Kith, so it tells no one, which shows whether `a` answers from its memo. The memo keeps results
// for an hour here: what empties it can only be a change or a notice, never the clock.
describe.runIf(TEST_DIALECT === 'postgres')(
  'PostgreSQL keeps hot reads until a change is committed or heard of',
  () => {
    let t: TestApp;
    let a: Db;
    let b: Db;
    let raw: pg.Client;

    type Items = Kysely<{ memo_items: { name: string } }>;
    const names = prepared((db) => (db as unknown as Items).selectFrom('memo_items').select('name').orderBy('name'), {
      memo: true,
    });
    const read = async (db: Db) => (await names(db.kysely)) as { name: string }[];
    const insert = (db: Kysely<Database>, name: string) =>
      (db as unknown as Items).insertInto('memo_items').values({ name }).execute();
    const listening = async (db: Db): Promise<void> => {
      // Kept twice in a row: the listening connection is up and the memo in use.
      await vi.waitFor(async () => expect(await read(db)).toBe(await read(db)), { timeout: 10_000 });
    };

    beforeAll(async () => {
      t = await createTestApp();
      await sql`create table memo_items (name text primary key)`.execute(t.ctx.db.kysely);
      a = openDatabase(t.ctx.config.database, { memoMs: 3_600_000, noticeRetryMs: 50 });
      b = openDatabase(t.ctx.config.database, { memoMs: 3_600_000 });
      raw = new (loadPg().Client)({ connectionString: (t.ctx.config.database as { url: string }).url });
      await raw.connect();
    });
    afterAll(async () => {
      await raw.end();
      await a.close();
      await b.close();
      await t.close();
    });

    it('answers the kept result while nothing this process knows of changed', async () => {
      await listening(a);
      await listening(b);
      // `b` tells the others once it listens: on a busy machine that notice reached `a` after `a`
      // was listening, and emptied its memo between the two reads below. A change of `b`'s, seen
      // by `a`, comes after it on the same connection: once `a` has read it, nothing is on its way.
      await insert(b.kysely, 'settled');
      await vi.waitFor(async () => expect((await read(a)).map((r) => r.name)).toContain('settled'), {
        timeout: 10_000,
      });
      await sql`delete from memo_items`.execute(b.kysely);
      await vi.waitFor(async () => expect(await read(a)).toEqual([]), { timeout: 10_000 });
      const first = await read(a);
      await raw.query(`insert into memo_items (name) values ('unseen')`);
      // The same frozen rows: the write past Kith told no one.
      expect(await read(a)).toBe(first);
      expect(Object.isFrozen(first)).toBe(true);
      expect(first.map((r) => r.name)).not.toContain('unseen');
      await raw.query(`delete from memo_items`);
    });

    it('reads its own writes at once, in a transaction or not; a rollback keeps the memo', async () => {
      await listening(a);
      await read(a);
      await insert(a.kysely, 'own');
      expect((await read(a)).map((r) => r.name)).toContain('own');
      await a.transaction((tx) => insert(tx, 'in-transaction'));
      expect((await read(a)).map((r) => r.name)).toContain('in-transaction');
      const kept = await read(a);
      await expect(
        a.transaction(async (tx) => {
          await insert(tx, 'rolled-back');
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await read(a)).toBe(kept);
      await a.kysely.deleteFrom('memo_items' as never).execute();
    });

    it("reads another process's write once its notice arrives", async () => {
      await listening(a);
      await listening(b);
      const before = await read(a);
      await insert(b.kysely, 'from-b');
      await vi.waitFor(async () => expect((await read(a)).map((r) => r.name)).toContain('from-b'), { timeout: 10_000 });
      expect(before.map((r) => r.name)).not.toContain('from-b');
      // And a transaction of `b`.
      await b.transaction((tx) => insert(tx, 'from-b-tx'));
      await vi.waitFor(async () => expect((await read(a)).map((r) => r.name)).toContain('from-b-tx'), {
        timeout: 10_000,
      });
      await b.kysely.deleteFrom('memo_items' as never).execute();
    });

    it('keeps nothing while its listening connection is down, and keeps again once it is back', async () => {
      await listening(a);
      await read(a);
      const { rows } = await raw.query<{ pid: number }>(
        'select pid from pg_stat_activity where datname = current_database() and application_name = $1',
        [NOTICES_APPLICATION_NAME],
      );
      // The test app's own, `a`'s and `b`'s; all go, and `a` cannot hear of the raw write below.
      expect(rows.length).toBe(3);
      await raw.query('select pg_terminate_backend(pid) from pg_stat_activity where pid = any($1)', [
        rows.map((r) => r.pid),
      ]);
      await raw.query(`insert into memo_items (name) values ('while-deaf')`);
      await vi.waitFor(async () => expect((await read(a)).map((r) => r.name)).toContain('while-deaf'), {
        timeout: 10_000,
      });
      // Listening again (the retry is 50 ms here): kept again.
      await listening(a);
      await raw.query(`delete from memo_items`);
    });

    it('sends no notice while no other process listens, and starts once one does', async () => {
      // A database of its own, where `lone` is the only Kith process at first.
      const name = `${TEST_DB_PREFIX}lone_${process.pid}`;
      await withAdmin((admin) => admin.query(`create database "${name}"`));
      const database = { kind: 'postgres' as const, url: urlForDatabase(name) };
      const client = loadPg().Client.prototype;
      const query = Reflect.get(client, 'query') as (...args: unknown[]) => unknown;
      // Only `lone`'s: the other handles of this file send notices of their own (`b` reconnects
      // after the test above). Its listening connection is known by its backend's pid.
      let lonePid = -1;
      let notices = 0;
      client.query = function (this: { processID?: number }, ...args: unknown[]) {
        if (typeof args[0] === 'string' && args[0].includes('pg_notify') && this.processID === lonePid) notices++;
        return query.apply(this, args);
      } as typeof client.query;
      const lone = openDatabase(database);
      let second: Db | null = null;
      try {
        await sql`create table memo_items (name text primary key)`.execute(lone.kysely);
        await listening(lone);
        const { rows } = await withAdmin((admin) =>
          admin.query<{ pid: number }>(
            'select pid from pg_stat_activity where datname = $1 and application_name = $2',
            [name, NOTICES_APPLICATION_NAME],
          ),
        );
        expect(rows.length).toBe(1);
        lonePid = rows[0]?.pid ?? -1;
        await insert(lone.kysely, 'one');
        await lone.transaction((tx) => insert(tx, 'two'));
        expect(notices).toBe(0);
        // The second process says that it listens; from then on `lone` tells it of each change.
        second = openDatabase(database);
        await listening(second);
        await vi.waitFor(
          async () => {
            await insert(lone.kysely, `more-${Math.random()}`);
            expect(notices).toBeGreaterThan(0);
          },
          { timeout: 10_000 },
        );
      } finally {
        client.query = query as typeof client.query;
        await second?.close();
        await lone.close();
        await withAdmin((admin) => admin.query(`drop database "${name}"`));
      }
    });
  },
);
