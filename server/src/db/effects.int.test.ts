import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.js';
import type { KithEvent } from '../events/event-bus.js';
import { transaction, type Effects, type Tx } from './transaction.js';

// The after-commit effects of `transaction()` on the engine of this run: on PostgreSQL each
// transaction has its own connection and commit; on SQLite concurrent ones share a batch.
describe('effects after commit, on the real database', () => {
  let t: TestApp;
  let published: KithEvent[] = [];
  let wake: ReturnType<typeof vi.spyOn>;

  beforeAll(async () => {
    t = await createTestApp();
    await sql`create table effects_items (name text primary key)`.execute(t.ctx.db.kysely);
    // A deferred foreign key is checked at COMMIT: the way to make a commit itself fail.
    await sql`create table effects_links (item text references effects_items (name) deferrable initially deferred)`.execute(
      t.ctx.db.kysely,
    );
    t.ctx.events.subscribe((event) => published.push(event));
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    // The events of the test before have all arrived: none can land in this test's list.
    await heard();
    published = [];
    wake = vi.spyOn(t.ctx.jobs, 'wake');
    await sql`delete from effects_items`.execute(t.ctx.db.kysely);
  });
  afterEach(() => wake.mockRestore());

  const event = (id: string): KithEvent => ({ type: 'message', groupId: 'g', messageId: id });
  const names = async () =>
    (await sql<{ name: string }>`select name from effects_items order by name`.execute(t.ctx.db.kysely)).rows.map(
      (r) => r.name,
    );
  const jobsOf = async (kind: string) =>
    (await t.ctx.db.kysely.selectFrom('jobs').select('id').where('payload', 'like', `%"kind":"${kind}"%`).execute())
      .length;
  let markers = 0;
  /**
   * What was published before the call, once it has all arrived: the bus may be Redis, whose
   * listeners hear an event a moment later, in order. A marker event closes the list.
   */
  const heard = async (): Promise<KithEvent[]> => {
    const marker = `marker-${(markers += 1)}`;
    t.ctx.events.publish(event(marker));
    await expect.poll(() => published.some((e) => e.type === 'message' && e.messageId === marker)).toBe(true);
    return published.filter((e) => !(e.type === 'message' && e.messageId.startsWith('marker-')));
  };
  /** Inserts `name`, publishes an event and queues a job named after it. */
  const unit = (name: string) => async (tx: Tx, effects: Effects) => {
    await sql`insert into effects_items (name) values (${name})`.execute(tx);
    effects.publish(event(name));
    await effects.enqueue('send-mail', { kind: name, sealed: 'not a real mail' });
    return name;
  };

  it('publishes and wakes the queue once the transaction committed, with its job written', async () => {
    let seen: string[] = [];
    const stop = t.ctx.events.subscribe(() => void names().then((rows) => (seen = rows)));
    try {
      await transaction(t.ctx, unit('one'));
      expect(await heard()).toEqual([event('one')]);
      expect(wake).toHaveBeenCalledTimes(1);
      expect(await jobsOf('one')).toBe(1);
      // Another connection saw the row when the event arrived: it was committed.
      await expect.poll(() => seen).toEqual(['one']);
    } finally {
      stop();
    }
  });

  it('runs nothing after a rollback, and writes no job', async () => {
    const failing = transaction(t.ctx, async (tx, effects) => {
      await unit('doomed')(tx, effects);
      throw new Error('changed my mind');
    });
    await expect(failing).rejects.toThrow('changed my mind');
    expect(await heard()).toEqual([]);
    expect(wake).not.toHaveBeenCalled();
    expect(await jobsOf('doomed')).toBe(0);
  });

  it('runs the effects of the transactions that committed, never those of one that failed beside them', async () => {
    const results = await Promise.allSettled([
      transaction(t.ctx, unit('a')),
      transaction(t.ctx, async (tx, effects) => {
        await unit('b')(tx, effects);
        throw new Error('b fails');
      }),
      transaction(t.ctx, unit('c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await heard()).map((e) => (e.type === 'message' ? e.messageId : e.type)).sort()).toEqual(['a', 'c']);
    expect(await names()).toEqual(['a', 'c']);
    expect(await jobsOf('b')).toBe(0);
  });

  it('runs nothing when the commit itself fails', async () => {
    const breaksCommit = transaction(t.ctx, async (tx, effects) => {
      await unit('orphan')(tx, effects);
      await sql`insert into effects_links (item) values ('nowhere')`.execute(tx);
    });
    await expect(breaksCommit).rejects.toBeTruthy();
    expect(await heard()).toEqual([]);
    expect(wake).not.toHaveBeenCalled();
    expect(await names()).toEqual([]);
    expect(await jobsOf('orphan')).toBe(0);
  });
});
