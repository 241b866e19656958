import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import type { Config } from '../config.js';
import { loadPg } from './database.js';

// Until the stores a second process needs are shared (live events, jobs, throttles: issue 19),
// one Kith server may run on one set of data. A second `serve` on the same data is refused at
// start-up, with a message, instead of losing events and doubling jobs. The locks are the engines'
// own, released by the operating system or the database when a process dies, so a crash (even
// kill -9) never leaves a stale lock behind. The admin CLI takes no lock: it works beside the server.

/** The lock is held by another server process. */
export class InstanceLockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InstanceLockedError';
  }
}

/** A held lock; `release` gives it back (at shutdown). */
export interface InstanceLock {
  release(): Promise<void>;
}

/** The PostgreSQL advisory lock key of a Kith server ("kith" in ASCII). */
export const POSTGRES_LOCK_KEY = 0x6b697468;

/** Takes the lock of the configured database, or throws InstanceLockedError. */
export async function acquireInstanceLock(database: Config['database']): Promise<InstanceLock> {
  return database.kind === 'postgres' ? lockPostgres(database.url) : lockSqlite(database.file);
}

/**
 * SQLite: an exclusive transaction held open on `<database>.lock`, a small SQLite file beside the
 * database (the database itself must stay open to the CLI's readers and writers).
 */
function lockSqlite(file: string): Promise<InstanceLock> {
  if (file === ':memory:') return Promise.resolve({ release: () => Promise.resolve() });
  const lockFile = `${file}.lock`;
  mkdirSync(path.dirname(lockFile), { recursive: true });
  const db = new SQLite(lockFile, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new InstanceLockedError(
        `Another Kith server is running on ${file}. With SQLite, one server process runs on one ` +
          'database: stop the other one first.',
      );
    }
    throw error;
  }
  return Promise.resolve({
    release: () => {
      db.close();
      return Promise.resolve();
    },
  });
}

/** PostgreSQL: a session advisory lock on a connection of its own, kept for the process's life. */
async function lockPostgres(url: string): Promise<InstanceLock> {
  const client = new (loadPg().Client)({ connectionString: url });
  await client.connect();
  // A dead process's connection ends and its lock with it; keepalive finds a vanished peer.
  const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
    POSTGRES_LOCK_KEY,
  ]);
  if (rows[0]?.locked !== true) {
    await client.end();
    throw new InstanceLockedError(
      'Another Kith server is running on this PostgreSQL database. Live events and background jobs ' +
        'are not shared between processes yet, so one server process runs on one database: stop the ' +
        'other one first.',
    );
  }
  client.on('error', () => undefined); // a lost connection is seen by the app's own pool too
  return { release: () => client.end() };
}
