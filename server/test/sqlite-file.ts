import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../src/db/database.js';

/** A SQLite database opened as the server opens it, in a new temporary folder of its own. */
export interface TempSqlite {
  /** The database file (its WAL is `${file}-wal`). */
  file: string;
  db: Db;
  /** Closes the database and deletes the folder. */
  remove: () => Promise<void>;
}

export function openTempSqlite(prefix: string): TempSqlite {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const file = path.join(dir, 'kith.db');
  const db = openDatabase({ kind: 'sqlite', file });
  return {
    file,
    db,
    remove: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
