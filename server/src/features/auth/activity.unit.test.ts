import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type Compilable } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../db/schema.js';
import { ActivityRecorder } from './activity.js';

/** A database that compiles the updates and lets the test settle each one. */
function fakeDb() {
  const kysely = new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  const writes: { parameters: readonly unknown[]; settle: (error?: Error) => void }[] = [];
  const writeAlone = (query: Compilable<unknown>) =>
    new Promise<void>((resolve, reject) => {
      writes.push({
        parameters: query.compile().parameters,
        settle: (error) => (error === undefined ? resolve() : reject(error)),
      });
    });
  return { db: { kysely, writeAlone }, writes };
}

describe('ActivityRecorder', () => {
  it('writes a user once per second however many writes of theirs run at once, and each waits for it', async () => {
    const { db, writes } = fakeDb();
    const recorder = new ActivityRecorder(db);
    let settled = 0;
    const calls = [10_000, 10_200, 10_999].map((now) => recorder.record('ana', now).then(() => settled++));
    expect(writes).toHaveLength(1);
    // The first call's time, the start of its second as the update's condition.
    expect(writes[0]!.parameters).toEqual([10_000, 'ana', 10_000]);
    await Promise.resolve();
    expect(settled).toBe(0);
    writes[0]!.settle();
    await Promise.all(calls);
    expect(settled).toBe(3);
  });

  it('writes each user of a second, and again in the next second', async () => {
    const { db, writes } = fakeDb();
    const recorder = new ActivityRecorder(db);
    void recorder.record('ana', 20_100);
    void recorder.record('ben', 20_500);
    void recorder.record('ana', 21_000);
    expect(writes.map((w) => w.parameters[1])).toEqual(['ana', 'ben', 'ana']);
    // Back in an earlier second (a clock set back): written again, never skipped.
    void recorder.record('ana', 20_900);
    expect(writes).toHaveLength(4);
    for (const w of writes) w.settle();
  });

  it('tries again after a failed write, which fails every call that waited for it', async () => {
    const { db, writes } = fakeDb();
    const recorder = new ActivityRecorder(db);
    const first = recorder.record('ana', 30_000);
    const second = recorder.record('ana', 30_100);
    writes[0]!.settle(new Error('database is locked'));
    await expect(first).rejects.toThrow('database is locked');
    await expect(second).rejects.toThrow('database is locked');
    const third = recorder.record('ana', 30_200);
    expect(writes).toHaveLength(2);
    writes[1]!.settle();
    await expect(third).resolves.toBeUndefined();
  });
});
