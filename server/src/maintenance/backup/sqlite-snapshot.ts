import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// SQLite's side of a backup. `VACUUM INTO` rather than the online backup API: it reads the whole
// database in ONE read transaction, so under WAL the copy is the database as of one commit while
// writers go on; the backup API instead restarts from the first page whenever another connection
// writes, which a busy server may do faster than a large copy completes. Both statements run for as
// long as the database is large, so they run in a worker thread: the server's event loop (a
// scheduled backup runs inside the server) never waits on them.

// The worker's whole program, a CommonJS script given the driver's absolute path (as db/checkpointer.ts).
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
function counts(db) {
  const tables = db
    .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kith_migrations%' and sql not like 'CREATE VIRTUAL TABLE%' order by name")
    .all()
    .map((row) => row.name);
  const out = {};
  for (const name of tables) out[name] = db.prepare('select count(*) as n from "' + name.replace(/"/g, '""') + '"').get().n;
  return out;
}
function lastMigration(db) {
  const found = db.prepare("select name from sqlite_master where type = 'table' and name = 'kith_migrations'").get();
  if (found === undefined) return null;
  const row = db.prepare('select name from kith_migrations order by name desc limit 1').get();
  return row === undefined ? null : row.name;
}
try {
  const db = new SQLite(workerData.file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    if (workerData.op === 'snapshot') {
      // The copy and its counts are taken apart: the counts below are read from the copy, which is
      // the snapshot itself, so they are exactly what it holds.
      db.prepare('VACUUM INTO ?').run(workerData.dest);
      parentPort.postMessage({ ok: true });
    } else {
      const problems = db.pragma('integrity_check').map((row) => row.integrity_check).filter((text) => text !== 'ok');
      const tables = counts(db);
      const keys = workerData.keys && tables.files !== undefined ? db.prepare('select storage_key from files').pluck().all() : [];
      parentPort.postMessage({ ok: true, integrity: problems, tables, migration: lastMigration(db), keys });
    }
  } finally {
    db.close();
  }
} catch (error) {
  parentPort.postMessage({ ok: false, message: error && error.message ? error.message : String(error) });
}
`;

interface WorkerAnswer {
  ok: boolean;
  message?: string;
  integrity?: string[];
  tables?: Record<string, number>;
  migration?: string | null;
  keys?: string[];
}

function runWorker(data: Record<string, unknown>): Promise<WorkerAnswer> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(PROGRAM, {
      eval: true,
      workerData: { ...data, driver: createRequire(import.meta.url).resolve('better-sqlite3') },
    });
    let answer: WorkerAnswer | null = null;
    worker.once('message', (message: WorkerAnswer) => {
      answer = message;
    });
    worker.once('error', reject);
    worker.once('exit', () => {
      if (answer === null) reject(new Error('The SQLite backup worker stopped without an answer'));
      else if (!answer.ok) reject(new Error(answer.message ?? 'SQLite failed'));
      else resolve(answer);
    });
  });
}

/** Writes a consistent copy of the SQLite database `file` to `dest` (which must not exist), beside a running server. */
export async function snapshotSqlite(file: string, dest: string): Promise<void> {
  await runWorker({ op: 'snapshot', file, dest });
}

/** What a check of a SQLite file found: integrity problems (none when sound), row counts, last migration. */
export interface SqliteCheck {
  integrity: string[];
  tables: Record<string, number>;
  migration: string | null;
}

/**
 * Runs `PRAGMA integrity_check` on `file` and counts the rows of its tables, off the event loop;
 * with `storageKeys`, also lists the file store keys its `files` table names.
 */
export async function checkSqlite(file: string, storageKeys = false): Promise<SqliteCheck & { keys: string[] }> {
  const answer = await runWorker({ op: 'check', file, keys: storageKeys });
  return {
    integrity: answer.integrity ?? [],
    tables: answer.tables ?? {},
    migration: answer.migration ?? null,
    keys: answer.keys ?? [],
  };
}
