import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../server/dist/db/database.js';
import { migrateToLatest } from '../../../server/dist/db/migrate.js';
import { compactSearchIndex } from './raw.ts';
import type { Manifest } from './types.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A database with the server's schema, its search index written in three commits, then some rows deleted. */
async function indexWithDeletedRows(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kith-compact-'));
  dirs.push(dir);
  const file = path.join(dir, 'kith.db');
  const db = openDatabase({ kind: 'sqlite', file });
  await migrateToLatest(db);
  await db.close();
  const sqlite = new SQLite(file);
  const insert = sqlite.prepare(
    `insert into message_search (rowid, message_id, title, text, author) values (?, ?, ?, 'cake recipe', 'ann')`,
  );
  for (let commit = 0; commit < 3; commit += 1) {
    sqlite.transaction(() => {
      for (let i = 1; i <= 20; i += 1) insert.run(commit * 20 + i, `m${commit * 20 + i}`, `title ${commit}`);
    })();
  }
  sqlite.prepare('delete from message_search where rowid % 2 = 0').run();
  sqlite.close();
  return file;
}

const segments = (file: string): number => {
  const sqlite = new SQLite(file, { readonly: true });
  try {
    return (sqlite.prepare('select count(distinct segid) as n from message_search_idx').get() as { n: number }).n;
  } finally {
    sqlite.close();
  }
};

const hits = (file: string): number[] => {
  const sqlite = new SQLite(file, { readonly: true });
  try {
    return (
      sqlite.prepare(`select rowid from message_search where message_search match 'cake' order by rowid`).all() as {
        rowid: number;
      }[]
    ).map((row) => row.rowid);
  } finally {
    sqlite.close();
  }
};

describe("the harness's merge of the search index after a run's posts are deleted", () => {
  it('leaves one segment and the same hits', async () => {
    const file = await indexWithDeletedRows();
    expect(segments(file)).toBeGreaterThan(1);
    const before = hits(file);
    expect(before).toHaveLength(30);

    expect(compactSearchIndex({ databaseUrl: `sqlite:${file}`, dataDir: path.dirname(file) } as Manifest)).toBe(true);

    expect(segments(file)).toBe(1);
    expect(hits(file)).toEqual(before);
  });

  it('leaves a PostgreSQL data set alone (its VACUUM is restoreAfterCleanup)', () => {
    expect(
      compactSearchIndex({ databaseUrl: 'postgres://127.0.0.1:1/none', dataDir: '/nonexistent' } as Manifest),
    ).toBe(false);
  });
});
