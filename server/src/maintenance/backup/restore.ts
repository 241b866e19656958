import { createReadStream } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config.js';
import { openDatabase } from '../../db/database.js';
import { acquireInstanceLock, InstanceLockedError, type InstanceLock } from '../../db/instance-lock.js';
import { isKnownMigration, migrateTo } from '../../db/migrate.js';
import type { FileStore } from '../../storage/file-store.js';
import { LocalFileStore } from '../../storage/local-file-store.js';
import { S3FileStore } from '../../storage/s3-file-store.js';
import {
  countDifferences,
  DATABASE_DIR,
  DUMP_FILE,
  FILES_DIR,
  SECRET_FILE,
  SQLITE_FILE,
  TABLES_DIR,
  verifyBackup,
} from './backup.js';
import { readManifest, stateOfName } from './manifest.js';
import { connect, countTables, importTables, restoreDump, tablesIn } from './postgres-snapshot.js';
import { checkSqlite } from './sqlite-snapshot.js';

// `npm run kith -- restore <backup folder> [--to DIR | postgres://…]`: verifies the backup, then
// puts it into an EMPTY data folder or database (anything else is refused before a byte is
// written) and checks the result against the manifest. The server then starts on it as usual (and
// migrates it if the backup came from an older version).

/** A refusal: the target or the backup is not what a restore can use. Nothing was changed. */
export class RestoreRefused extends Error {}

/** Names a data folder may hold and still count as empty: what loading the configuration or a lock leaves. */
const IGNORED_IN_EMPTY_FOLDER = new Set([SECRET_FILE, `${SQLITE_FILE}.lock`]);

export interface RestoreReport {
  backup: string;
  engine: 'sqlite' | 'postgres';
  method: string;
  target: { database: string; files: string };
  tables: Record<string, number>;
  files: { count: number; bytes: number };
  secretKey: 'restored' | 'not in the backup';
  seconds: number;
  next: string;
}

/** The URL as the report shows it: without its password. */
function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString();
}

async function entriesOf(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * Restores the backup in `folder` into `to` (a data folder for a SQLite backup, a PostgreSQL URL
 * for a PostgreSQL one), or into the configured DATA_DIR / DATABASE_URL without it. Files go to
 * the configured S3 bucket when S3_BUCKET is set, else to `<data folder>/files`.
 */
export async function restoreBackup(config: Config, folder: string, to: string | undefined): Promise<RestoreReport> {
  const started = Date.now();
  const backup = path.resolve(folder);
  if (stateOfName(path.basename(backup)) !== 'verified') {
    throw new RestoreRefused(`${backup} is a backup that failed or did not finish: restore a verified one`);
  }
  const manifest = await readManifest(backup).catch((error: unknown) => {
    throw new RestoreRefused((error as Error).message);
  });
  if (manifest.state !== 'verified') throw new RestoreRefused(`${backup} was not verified when it was taken`);
  if (manifest.schemaMigration !== null && !isKnownMigration(manifest.schemaMigration)) {
    throw new RestoreRefused(
      `The backup's schema (${manifest.schemaMigration}) is newer than this version of Kith: restore it with the version that took it (${manifest.kithVersion}) or a later one`,
    );
  }

  // Where it goes.
  const toUrl = to !== undefined && /^postgres(ql)?:\/\//.test(to);
  let dataDir = config.dataDir;
  let database: Config['database'];
  if (manifest.engine === 'sqlite') {
    if (toUrl)
      throw new RestoreRefused(
        'This is a SQLite backup: --to takes a data folder (then migrate-data moves it to PostgreSQL)',
      );
    if (to !== undefined) {
      dataDir = path.resolve(to);
      database = { kind: 'sqlite', file: path.join(dataDir, SQLITE_FILE) };
    } else if (config.database.kind === 'sqlite') {
      database = config.database;
    } else {
      throw new RestoreRefused(
        'This is a SQLite backup but DATABASE_URL is PostgreSQL: give the data folder with --to DIR',
      );
    }
  } else {
    if (to !== undefined && !toUrl)
      throw new RestoreRefused('This is a PostgreSQL backup: --to takes a postgres:// URL of an empty database');
    const url = to ?? (config.database.kind === 'postgres' ? config.database.url : null);
    if (url === null)
      throw new RestoreRefused('This is a PostgreSQL backup: set DATABASE_URL or give --to postgres://…');
    database = { kind: 'postgres', url };
  }
  const filesTarget: FileStore =
    config.s3 === null ? new LocalFileStore(path.join(dataDir, 'files')) : new S3FileStore(config.s3);
  const filesWhere = config.s3 === null ? path.join(dataDir, 'files') : `s3://${config.s3.bucket}`;
  const databaseWhere = database.kind === 'sqlite' ? database.file : withoutPassword(database.url);

  // The target must be empty: nothing is overwritten or merged.
  if (database.kind === 'sqlite') {
    const held = (await entriesOf(dataDir)).filter((name) => !IGNORED_IN_EMPTY_FOLDER.has(name));
    if (held.length > 0) {
      throw new RestoreRefused(
        `The data folder ${dataDir} is not empty (${held.slice(0, 5).join(', ')}${held.length > 5 ? ', …' : ''}): restore into an empty folder`,
      );
    }
    if (await stat(database.file).catch(() => null)) {
      throw new RestoreRefused(`The database file ${database.file} already exists: restore into an empty place`);
    }
  } else {
    const client = await connect(database.url);
    try {
      const held = await tablesIn(client);
      if (held.length > 0) {
        throw new RestoreRefused(
          `The database ${databaseWhere} is not empty (${held.length} tables, e.g. ${held.slice(0, 3).join(', ')}): restore into a new, empty database`,
        );
      }
    } finally {
      await client.end();
    }
  }
  if (filesTarget instanceof S3FileStore) {
    await filesTarget.ready();
    for await (const object of filesTarget.list()) {
      throw new RestoreRefused(
        `The bucket ${filesWhere} is not empty (it holds ${object.key}): restore into an empty bucket`,
      );
    }
  } else if (config.s3 === null && (await entriesOf(path.join(dataDir, 'files'))).length > 0) {
    throw new RestoreRefused(`${filesWhere} is not empty: restore into an empty data folder`);
  }

  const problems = await verifyBackup(backup);
  if (problems.length > 0) {
    throw new RestoreRefused(
      `The backup does not pass its verification, nothing was restored:\n  ${problems.slice(0, 20).join('\n  ')}`,
    );
  }

  // No server may start on the target while it fills.
  let lock: InstanceLock;
  try {
    lock = await acquireInstanceLock(database);
  } catch (error) {
    if (error instanceof InstanceLockedError)
      throw new RestoreRefused(`A Kith server is running on the target: ${error.message}`);
    throw error;
  }
  try {
    let found: Record<string, number>;
    if (database.kind === 'sqlite') {
      await mkdir(path.dirname(database.file), { recursive: true });
      // Under another name until whole: a cut restore never looks like a database.
      const partial = `${database.file}.restoring`;
      await copyFile(path.join(backup, DATABASE_DIR, SQLITE_FILE), partial);
      await rename(partial, database.file);
      const check = await checkSqlite(database.file);
      if (check.integrity.length > 0)
        throw new Error(`The restored database fails integrity_check: ${check.integrity[0] ?? ''}`);
      found = check.tables;
    } else if (manifest.method === 'pg_dump') {
      await restoreDump(path.join(backup, DATABASE_DIR, DUMP_FILE), database.url);
      found = await countIn(database.url);
    } else {
      // The schema of the backup's migration, then its rows (the server migrates on at its start).
      const db = openDatabase(database);
      try {
        if (manifest.schemaMigration !== null) await migrateTo(db, manifest.schemaMigration);
      } finally {
        await db.close();
      }
      const client = await connect(database.url);
      try {
        await importTables(client, Object.keys(manifest.database.tables), (table) =>
          path.join(backup, DATABASE_DIR, TABLES_DIR, `${table}.jsonl`),
        );
      } finally {
        await client.end();
      }
      found = await countIn(database.url);
    }
    const differences = countDifferences(manifest.database.tables, found, 'in the restored database');
    if (differences.length > 0)
      throw new Error(`The restored database differs from the backup:\n  ${differences.join('\n  ')}`);

    for (const entry of manifest.files.list) {
      await filesTarget.write(entry.key, createReadStream(path.join(backup, FILES_DIR, ...entry.key.split('/'))));
    }
    let secretKey: RestoreReport['secretKey'] = 'not in the backup';
    if (manifest.secretKey !== null) {
      await mkdir(dataDir, { recursive: true });
      const target = path.join(dataDir, SECRET_FILE);
      await copyFile(path.join(backup, SECRET_FILE), `${target}.restoring`);
      await chmod(`${target}.restoring`, 0o600);
      await rename(`${target}.restoring`, target);
      secretKey = 'restored';
    }
    return {
      backup,
      engine: manifest.engine,
      method: manifest.method,
      target: { database: databaseWhere, files: filesWhere },
      tables: found,
      files: { count: manifest.files.count, bytes: manifest.files.bytes },
      secretKey,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      next:
        secretKey === 'restored'
          ? 'Start the server on the restored data (DATA_DIR / DATABASE_URL), without SECRET_KEY: it uses the restored secret.key.'
          : 'Start the server on the restored data with the SECRET_KEY the instance had (the backup holds none: it came from the environment).',
    };
  } finally {
    await lock.release();
  }
}

async function countIn(url: string): Promise<Record<string, number>> {
  const client = await connect(url);
  try {
    return await countTables(client);
  } finally {
    await client.end();
  }
}
