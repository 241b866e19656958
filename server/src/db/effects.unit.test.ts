import { sql, type Kysely } from 'kysely';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTempSqlite, type TempSqlite } from '../../test/sqlite-file.js';
import type { KithEvent } from '../events/event-bus.js';
import { MemoryEventBus } from '../events/memory-event-bus.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { Database } from './schema.js';
import { transaction, type Effects, type Tx } from './transaction.js';
import { signal } from '../../test/signal.js';

// The after-commit effects of `transaction()` (effects.ts) on a real SQLite file, through the
// app's own group commit (write-batch.ts). A fake queue writes its "job rows" into a test table.
describe('effects after commit', () => {
  let temp: TempSqlite;
  let published: KithEvent[];
  let wakes: number;
  /** What the subscriber saw of the table when each event arrived (on the read connection). */
  let seenAtPublish: string[][];
  let ctx: Parameters<typeof transaction>[0];

  const names = async (db: Kysely<Database>): Promise<string[]> =>
    (await sql<{ name: string }>`select name from items order by name`.execute(db)).rows.map((r) => r.name);

  beforeEach(async () => {
    temp = openTempSqlite('kith-effects-');
    await sql`create table items (name text primary key)`.execute(temp.db.kysely);
    await sql`create table fake_jobs (name text)`.execute(temp.db.kysely);
    // A deferred foreign key is checked at COMMIT: the way to make a commit itself fail.
    await sql`create table links (item text references items (name) deferrable initially deferred)`.execute(
      temp.db.kysely,
    );
    published = [];
    wakes = 0;
    seenAtPublish = [];
    const events = new MemoryEventBus();
    events.subscribe((event) => {
      published.push(event);
      // Synchronous listener: a promise keeps the order of the reads the same as the events'.
      void names(temp.db.kysely).then((seen) => seenAtPublish.push(seen));
    });
    const jobs: JobQueue = {
      register: () => undefined,
      enqueue: async (db, name) => {
        await sql`insert into fake_jobs (name) values (${name})`.execute(db);
        return name;
      },
      enqueueMany: () => Promise.reject(new Error('not used here')),
      wake: () => {
        wakes += 1;
      },
      start: () => undefined,
      stop: () => Promise.resolve(),
      drain: () => Promise.resolve(),
    };
    ctx = { db: temp.db, events, jobs, log: pino({ level: 'silent' }) };
  });

  afterEach(() => temp.remove());

  const message = (id: string): KithEvent => ({ type: 'message', groupId: 'g', messageId: id });
  const insert = (tx: Tx, name: string) => sql`insert into items (name) values (${name})`.execute(tx);
  /** Inserts `name` and publishes an event named after it. */
  const unit = (name: string) => async (tx: Tx, effects: Effects) => {
    await insert(tx, name);
    effects.publish(message(name));
    return name;
  };

  /** A transaction that holds the writer until `release()`, so the ones started meanwhile share a batch. */
  async function blocker() {
    const gate = signal();
    const running = signal();
    const done = transaction(ctx, async (tx, effects) => {
      await unit('first')(tx, effects);
      running.resolve();
      await gate.promise;
    });
    await running.promise;
    return { release: gate.resolve, done };
  }

  it('publishes in the order asked, once the writes are visible to other connections', async () => {
    await transaction(ctx, async (tx, effects) => {
      await insert(tx, 'a');
      effects.publish({ type: 'notification', userId: 'u', notificationId: 'n' });
      effects.publish(message('a'));
      // Nothing leaves before the commit.
      expect(published).toEqual([]);
    });
    expect(published).toEqual([{ type: 'notification', userId: 'u', notificationId: 'n' }, message('a')]);
    await expect.poll(() => seenAtPublish).toEqual([['a'], ['a']]);
  });

  it('writes jobs in the transaction and wakes the queue once, after the commit', async () => {
    await transaction(ctx, async (tx, effects) => {
      await effects.enqueue('send-mail', { kind: 'one', sealed: 'x' });
      await effects.enqueue('send-mail', { kind: 'two', sealed: 'y' });
      expect(wakes).toBe(0);
    });
    expect(wakes).toBe(1);
    expect((await sql`select name from fake_jobs`.execute(temp.db.kysely)).rows).toHaveLength(2);
    // A transaction that enqueues nothing does not wake the queue.
    await transaction(ctx, unit('b'));
    expect(wakes).toBe(1);
  });

  it('runs nothing after a rollback, and the job rows go with it', async () => {
    const failing = transaction(ctx, async (tx, effects) => {
      await unit('doomed')(tx, effects);
      await effects.enqueue('send-mail', { kind: 'k', sealed: 's' });
      throw new Error('changed my mind');
    });
    await expect(failing).rejects.toThrow('changed my mind');
    expect(published).toEqual([]);
    expect(wakes).toBe(0);
    expect(await names(temp.db.kysely)).toEqual([]);
    expect((await sql`select name from fake_jobs`.execute(temp.db.kysely)).rows).toEqual([]);
  });

  it("in a shared batch, drops a failing unit's effects and runs the others'", async () => {
    const first = await blocker();
    const before = transaction(ctx, unit('before'));
    const failing = transaction(ctx, async (tx, effects) => {
      await unit('doomed')(tx, effects);
      await effects.enqueue('send-mail', { kind: 'k', sealed: 's' });
      throw new Error('changed my mind');
    });
    const after = transaction(ctx, unit('after'));
    first.release();
    await first.done;
    await expect(failing).rejects.toThrow('changed my mind');
    expect(await Promise.all([before, after])).toEqual(['before', 'after']);
    expect(published).toEqual([message('first'), message('before'), message('after')]);
    expect(wakes).toBe(0);
    expect(await names(temp.db.kysely)).toEqual(['after', 'before', 'first']);
  });

  it('runs no effect of any unit when the shared commit itself fails', async () => {
    const first = await blocker();
    const good = transaction(ctx, unit('good'));
    const breaksCommit = transaction(ctx, async (tx, effects) => {
      effects.publish(message('nowhere'));
      await sql`insert into links (item) values ('nowhere')`.execute(tx);
    });
    first.release();
    await first.done;
    // Each savepoint unit ended well; only the outer commit failed, so neither may be heard of.
    await expect(good).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    await expect(breaksCommit).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    expect(published).toEqual([message('first')]);
    expect(await names(temp.db.kysely)).toEqual(['first']);
  });

  it('logs a failing effect instead of failing the committed transaction', async () => {
    const wake = (): void => {
      throw new Error('the queue is broken');
    };
    const broken = { ...ctx, jobs: { ...ctx.jobs, wake } };
    await expect(
      transaction(broken, async (tx, effects) => {
        await effects.enqueue('send-mail', { kind: 'k', sealed: 's' });
        effects.publish(message('x'));
        return 'answered';
      }),
    ).resolves.toBe('answered');
    expect(published).toEqual([message('x')]);
  });
});
