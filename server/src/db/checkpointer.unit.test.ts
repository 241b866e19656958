import { statSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackgroundCheckpointer, CHECKPOINT_INTERVAL_MS, TRUNCATE_AFTER_FRAMES } from './checkpointer.js';
import { openTempSqlite, type TempSqlite } from '../../test/sqlite-file.js';
import { openDatabase, type Db } from './database.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds or `ms` passed; answers whether it held. */
async function eventually(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await sleep(50);
  }
  return check();
}

// Checkpoints in the worker thread (checkpointer.ts), seen from the files on disk.
describe('SQLite background checkpoints', () => {
  let temp: TempSqlite;
  let file: string;
  let db: Db;

  beforeEach(async () => {
    temp = openTempSqlite('kith-checkpoint-');
    ({ file, db } = temp);
    await sql`create table blobs (data blob)`.execute(db.kysely);
  });

  afterEach(() => temp.remove());

  /** Writes about `pages` pages of 4 KiB in one transaction. */
  const write = (pages: number) =>
    db.transaction((tx) =>
      sql`
        with recursive n(i) as (select 1 union all select i + 1 from n where i < ${pages})
        insert into blobs select zeroblob(3900) from n`.execute(tx),
    );

  it('copies committed pages into the database file without the writer checkpointing', async () => {
    await write(1);
    // The server's own connection does not checkpoint, or this would happen inside the commit.
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db.kysely);
    expect(rows[0]?.wal_autocheckpoint).toBe(0);
    const before = statSync(file).size;
    await write(2000);
    // Right after the commit the pages are only in the WAL.
    expect(statSync(file).size).toBe(before);
    expect(await eventually(() => statSync(file).size > before + 2000 * 3900, 30 * CHECKPOINT_INTERVAL_MS)).toBe(true);
  });

  it(`empties the WAL once it holds more than ${TRUNCATE_AFTER_FRAMES} frames`, async () => {
    await write(TRUNCATE_AFTER_FRAMES + 500);
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(TRUNCATE_AFTER_FRAMES * 4096);
    expect(await eventually(() => statSync(`${file}-wal`).size === 0, 30 * CHECKPOINT_INTERVAL_MS)).toBe(true);
    const { rows } = await sql<{ n: number }>`select count(*) as n from blobs`.execute(db.kysely);
    expect(rows[0]?.n).toBe(TRUNCATE_AFTER_FRAMES + 500);
  });

  it('empties the WAL while writes keep coming', async () => {
    await write(TRUNCATE_AFTER_FRAMES + 500);
    const walBytes = () => statSync(`${file}-wal`).size;
    let writes = 0;
    const deadline = Date.now() + 10 * CHECKPOINT_INTERVAL_MS;
    // One small transaction after another: the writer is never idle for long.
    while (walBytes() > TRUNCATE_AFTER_FRAMES * 4096 && Date.now() < deadline) {
      await write(2);
      writes += 1;
    }
    expect(walBytes()).toBeLessThan(TRUNCATE_AFTER_FRAMES * 4096);
    const { rows } = await sql<{ n: number }>`select count(*) as n from blobs`.execute(db.kysely);
    expect(rows[0]?.n).toBe(TRUNCATE_AFTER_FRAMES + 500 + 2 * writes);
  });

  it('keeps writing while a reader holds an old snapshot, and empties the WAL once it lets go', async () => {
    const reader = new SQLite(file, { readonly: true });
    try {
      reader.exec('begin');
      reader.prepare('select count(*) from blobs').get();
      await write(TRUNCATE_AFTER_FRAMES + 500);
      // Several checkpoint rounds: each TRUNCATE is held back by the reader, and no write fails.
      for (let i = 0; i < 12; i += 1) {
        await write(2);
        await sleep(CHECKPOINT_INTERVAL_MS / 4);
      }
      expect(statSync(`${file}-wal`).size).toBeGreaterThan(TRUNCATE_AFTER_FRAMES * 4096);
      reader.exec('commit');
    } finally {
      reader.close();
    }
    await write(TRUNCATE_AFTER_FRAMES + 10);
    expect(await eventually(() => statSync(`${file}-wal`).size === 0, 30 * CHECKPOINT_INTERVAL_MS)).toBe(true);
  });

  it('copies a WAL it finds at open, with nothing written yet', async () => {
    // Another connection that never checkpoints leaves pages in the WAL, as a crash would.
    const other = new SQLite(file);
    other.pragma('wal_autocheckpoint = 0');
    other.prepare('insert into blobs select zeroblob(3900) from blobs').run();
    other.exec('insert into blobs values (zeroblob(3900))');
    for (let i = 0; i < 11; i += 1) other.exec('insert into blobs select zeroblob(3900) from blobs');
    const before = statSync(file).size;
    const reopened = openDatabase({ kind: 'sqlite', file });
    try {
      expect(await eventually(() => statSync(file).size > before + 1000 * 3900, 30 * CHECKPOINT_INTERVAL_MS)).toBe(
        true,
      );
    } finally {
      await reopened.close();
      other.close();
    }
  });
});

// The worker's life: it runs only while there is writing to copy.
describe('the checkpoint worker starts with writes and stops without them', () => {
  // Long enough that a busy machine, whose timers fire late, does not take the gaps between
  // writes for an idle round.
  const IDLE_MS = 2000;
  let temp: TempSqlite;
  let writer: SQLite.Database;
  let checkpointer: BackgroundCheckpointer;
  const errors: string[] = [];

  beforeEach(() => {
    temp = openTempSqlite('kith-checkpoint-idle-');
    // A connection of the test's own, which (like the server's) never checkpoints by itself.
    writer = new SQLite(temp.file);
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('create table blobs (data blob)');
    checkpointer = new BackgroundCheckpointer(
      temp.file,
      { onError: (message) => errors.push(message), onDue: () => undefined },
      IDLE_MS,
    );
  });

  afterEach(async () => {
    await checkpointer.stop();
    writer.close();
    await temp.remove();
    expect(errors).toEqual([]);
  });

  const write = (pages: number) => {
    writer
      .prepare('insert into blobs select zeroblob(3900) from (select 1 from json_each(?))')
      .run(JSON.stringify(Array.from({ length: pages }, () => 0)));
    checkpointer.wrote();
  };
  const copied = (before: number) => () => statSync(temp.file).size > before + 500 * 3900;

  it('has no worker before the first write, then copies what each write leaves in the WAL', async () => {
    expect(checkpointer.running).toBe(false);
    const before = statSync(temp.file).size;
    write(600);
    expect(checkpointer.running).toBe(true);
    expect(await eventually(copied(before), 30 * CHECKPOINT_INTERVAL_MS)).toBe(true);
  });

  it('keeps the worker while writes come, stops it after a round without one, and starts another at the next', async () => {
    write(1);
    // Writes more often than the idle round: the worker stays.
    for (let i = 0; i < 6; i += 1) {
      await sleep(IDLE_MS / 3);
      write(1);
      expect(checkpointer.running).toBe(true);
    }
    expect(await eventually(() => !checkpointer.running, 10 * IDLE_MS)).toBe(true);
    // The next write starts another worker, which copies it (at the latest in its last round).
    const before = statSync(temp.file).size;
    write(600);
    expect(checkpointer.running).toBe(true);
    expect(await eventually(copied(before), 30 * CHECKPOINT_INTERVAL_MS)).toBe(true);
  });

  it('stopUnlessDue stops the worker at once, after copying what was written; the next write starts another', async () => {
    const before = statSync(temp.file).size;
    write(600);
    expect(checkpointer.running).toBe(true);
    checkpointer.stopUnlessDue();
    expect(checkpointer.running).toBe(false);
    // Its last round copied the write.
    expect(await eventually(copied(before), 30 * CHECKPOINT_INTERVAL_MS)).toBe(true);
    const after = statSync(temp.file).size;
    write(600);
    expect(checkpointer.running).toBe(true);
    expect(await eventually(copied(after), 30 * CHECKPOINT_INTERVAL_MS)).toBe(true);
  });

  it('stops at once whether a worker runs, is stopping for idleness, or never started', async () => {
    const idle = new BackgroundCheckpointer(temp.file, { onError: (m) => errors.push(m), onDue: () => undefined });
    await idle.stop();
    write(1);
    expect(await eventually(() => !checkpointer.running, 10 * IDLE_MS)).toBe(true);
    write(1);
    await checkpointer.stop();
    expect(checkpointer.running).toBe(false);
    // A write after the stop starts nothing.
    write(1);
    expect(checkpointer.running).toBe(false);
  });
});
