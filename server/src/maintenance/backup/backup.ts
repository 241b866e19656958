import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { chmod, link, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../../config.js';
import { checkFileKey } from '../../storage/file-store.js';
import { isPartialWrite } from '../../storage/local-file-store.js';
import { S3FileStore } from '../../storage/s3-file-store.js';
import { digest } from '../../storage/digest.js';
import {
  BACKUP_PREFIX,
  listBackups,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  readManifest,
  type BackupManifest,
  type FileEntry,
} from './manifest.js';
import {
  choosePostgresMethod,
  connect,
  countDumpRows,
  countExportRows,
  snapshotPostgres,
  type PostgresMethod,
} from './postgres-snapshot.js';
import { checkSqlite, snapshotSqlite } from './sqlite-snapshot.js';

// `npm run kith -- backup` and the scheduled backups (docs/operations.md, "Backups and restores"):
// the database first (one consistent snapshot, taken beside the running server), then the files,
// then the manifest, then a verification that reads everything back. Files come after the
// database: a file the snapshot names was in the store when the snapshot was taken, and Kith
// removes file bytes only a day after nothing uses them (maintenance/housekeeping.ts), so the copy
// finds it; a file uploaded meanwhile is copied too and is merely unused in a restore.

const KITH_VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/** Where the database's copy goes inside a backup folder. */
export const DATABASE_DIR = 'database';
export const SQLITE_FILE = 'kith.db';
export const DUMP_FILE = 'kith.dump';
export const TABLES_DIR = 'tables';
/** The copied file store inside a backup folder, one file per key. */
export const FILES_DIR = 'files';
export const SECRET_FILE = 'secret.key';

/** Files copied at once: each waits on the disk or the bucket more than on the processor. */
const FILES_IN_FLIGHT = 4;

export type BackupMethodChoice = 'auto' | PostgresMethod;

export interface BackupOptions {
  /** The directory the backup folder is made in. */
  dir: string;
  /** PostgreSQL: pg_dump, the export, or pg_dump when usable (default). */
  method?: BackupMethodChoice;
  /** Now, for the folder's name (the app's clock). */
  now?: () => number;
  /** Called just before the database snapshot begins: whatever committed before is in the backup. */
  onSnapshot?: () => void;
  /** Tests only: called with the folder once written, before it is verified (to damage it). */
  beforeVerify?: (folder: string) => Promise<void>;
}

/** The result a backup prints and logs: the manifest without its file list (and nothing secret). */
export interface BackupReport {
  state: 'verified' | 'failed';
  folder: string;
  name: string;
  engine: BackupManifest['engine'];
  method: BackupManifest['method'];
  /** Why pg_dump was not used, when it was not. */
  methodNote?: string;
  schemaMigration: string | null;
  tables: Record<string, number>;
  files: { source: 'local' | 's3'; count: number; bytes: number; copied: number; linked: number; missing: string[] };
  secretKey: boolean;
  verification: { ok: boolean; problems: string[] };
  seconds: number;
}

/** A backup folder's name from its start time: ISO 8601 with `-` for the characters file systems dislike. */
export function folderName(ms: number): string {
  return `${BACKUP_PREFIX}${new Date(ms).toISOString().replace(/[:.]/g, '-')}`;
}

/** Copies `source` into `file` (which must not exist), returning its SHA-256 and size. */
async function copyHashing(source: Readable, file: string): Promise<{ sha256: string; size: number }> {
  await mkdir(path.dirname(file), { recursive: true });
  const hash = createHash('sha256');
  let size = 0;
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(source, hashing, createWriteStream(file, { flags: 'wx' }));
  return { sha256: hash.digest('hex'), size };
}

/** SHA-256 and size of a file on disk. */
function hashFile(file: string): Promise<{ sha256: string; size: number }> {
  return digest(createReadStream(file));
}

/** Runs `work` on each item, a few at a time; the first failure stops the rest and is thrown. */
async function eachInFlight<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (failure === null && next < items.length) {
      const item = items[next] as T;
      next += 1;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: FILES_IN_FLIGHT }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
}

/** A file of the store to back up, and how to tell it is the one the previous backup copied. */
interface SourceFile {
  key: string;
  size: number;
  mtimeMs?: number;
  etag?: string;
  open: () => Readable;
}

/** The keys of the local store under `root` (partial writes and foreign names left out). */
async function localFiles(root: string): Promise<SourceFile[]> {
  let entries;
  try {
    entries = await readdir(root, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files: SourceFile[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const key = path.relative(root, file).split(path.sep).join('/');
    if (isPartialWrite(key)) continue;
    try {
      checkFileKey(key);
    } catch {
      continue;
    }
    try {
      const info = await stat(file);
      files.push({ key, size: info.size, mtimeMs: info.mtimeMs, open: () => createReadStream(file) });
    } catch (error) {
      // Removed since the listing (housekeeping): nothing to copy.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The objects of the bucket. */
async function bucketFiles(store: S3FileStore): Promise<SourceFile[]> {
  const files: SourceFile[] = [];
  for await (const object of store.list()) {
    try {
      checkFileKey(object.key);
    } catch {
      continue;
    }
    files.push({ key: object.key, size: object.size, etag: object.etag, open: () => store.read(object.key) });
  }
  return files;
}

/** The newest verified backup in `dir`, with its manifest, to link unchanged files to. */
async function previousBackup(dir: string): Promise<{ folder: string; byKey: Map<string, FileEntry> } | null> {
  const verified = (await listBackups(dir)).filter((b) => b.state === 'verified');
  for (const found of verified.reverse()) {
    try {
      const manifest = await readManifest(found.folder);
      return { folder: found.folder, byKey: new Map(manifest.files.list.map((entry) => [entry.key, entry])) };
    } catch {
      // A folder without a readable manifest cannot vouch for its files: try an older one.
    }
  }
  return null;
}

/**
 * Copies the file store into `<folder>/files`. A file with the same key, size and modification time
 * (local) or ETag (S3) as in the previous verified backup is a hard link to that backup's copy: no
 * byte is copied again, and each backup folder still holds every file (deleting an old backup
 * deletes only what no newer one links to).
 */
async function copyStore(
  sources: SourceFile[],
  folder: string,
  previous: { folder: string; byKey: Map<string, FileEntry> } | null,
): Promise<{ list: FileEntry[]; copied: number; linked: number }> {
  const list: FileEntry[] = [];
  let copied = 0;
  let linked = 0;
  await eachInFlight(sources, async (source) => {
    const target = path.join(folder, FILES_DIR, ...source.key.split('/'));
    const before = previous?.byKey.get(source.key);
    const unchanged =
      before !== undefined &&
      before.size === source.size &&
      (source.etag === undefined ? before.mtimeMs === source.mtimeMs : before.etag === source.etag);
    if (unchanged && previous !== null) {
      const earlier = path.join(previous.folder, FILES_DIR, ...source.key.split('/'));
      try {
        await mkdir(path.dirname(target), { recursive: true });
        await link(earlier, target);
        list.push({ ...before, key: source.key });
        linked += 1;
        return;
      } catch (error) {
        // Another file system (EXDEV), or the earlier copy gone: copy it after all.
        await rm(target, { force: true });
        if (!['EXDEV', 'ENOENT', 'EPERM', 'EMLINK'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
      }
    }
    let written: { sha256: string; size: number };
    try {
      written = await copyHashing(source.open(), target);
    } catch (error) {
      // Removed between the listing and the copy: the snapshot does not need it (see above).
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !(await exists(target))) return;
      throw error;
    }
    list.push({
      key: source.key,
      size: written.size,
      sha256: written.sha256,
      ...(source.mtimeMs === undefined ? {} : { mtimeMs: source.mtimeMs }),
      ...(source.etag === undefined ? {} : { etag: source.etag }),
    });
    copied += 1;
  });
  list.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { list, copied, linked };
}

async function exists(file: string): Promise<boolean> {
  return (await stat(file).catch(() => null)) !== null;
}

/** The report of a manifest (what is printed and logged). */
function reportOf(folder: string, manifest: BackupManifest, seconds: number, methodNote?: string): BackupReport {
  const { list: _list, ...files } = manifest.files;
  return {
    state: manifest.state === 'verified' ? 'verified' : 'failed',
    folder,
    name: manifest.name,
    engine: manifest.engine,
    method: manifest.method,
    ...(methodNote === undefined ? {} : { methodNote }),
    schemaMigration: manifest.schemaMigration,
    tables: manifest.database.tables,
    files: {
      source: files.source,
      count: files.count,
      bytes: files.bytes,
      copied: files.copied,
      linked: files.linked,
      missing: files.missing,
    },
    secretKey: manifest.secretKey !== null,
    verification: manifest.verification,
    seconds,
  };
}

/**
 * Takes a backup of the instance `config` describes into a new folder of `options.dir`, beside the
 * running server, verifies it, and returns the report. The folder ends verified (no suffix) or
 * `.failed`; an error before the manifest is written leaves it `.incomplete` and is thrown.
 */
export async function createBackup(config: Config, options: BackupOptions): Promise<BackupReport> {
  const started = Date.now();
  const now = options.now?.() ?? started;
  await mkdir(options.dir, { recursive: true });
  const name = folderName(now);
  const working = path.join(options.dir, `${name}.incomplete`);
  // Not recursive: a folder of that name already there (two backups in the same millisecond) is an
  // error, not a folder to share. Private: it holds the whole database and possibly secret.key.
  await mkdir(working, { mode: 0o700 });
  await mkdir(path.join(working, DATABASE_DIR));
  const previous = await previousBackup(options.dir);

  let method: BackupManifest['method'];
  let methodNote: string | undefined;
  let tables: Record<string, number>;
  let migration: string | null;
  let referenced: string[];
  if (config.database.kind === 'sqlite') {
    if (config.database.file === ':memory:') throw new Error('An in-memory database cannot be backed up');
    if (!(await exists(config.database.file)))
      throw new Error(`No database at ${config.database.file} (check DATA_DIR)`);
    const copy = path.join(working, DATABASE_DIR, SQLITE_FILE);
    options.onSnapshot?.();
    await snapshotSqlite(config.database.file, copy);
    const counted = await checkSqlite(copy, true);
    method = 'vacuum-into';
    tables = counted.tables;
    migration = counted.migration;
    referenced = counted.keys;
  } else {
    const client = await connect(config.database.url);
    try {
      let chosen: PostgresMethod;
      if (options.method === undefined || options.method === 'auto') {
        const choice = await choosePostgresMethod(client);
        chosen = choice.method;
        if (choice.why !== null) methodNote = `export used: ${choice.why}`;
      } else {
        chosen = options.method;
      }
      if (chosen === 'export') await mkdir(path.join(working, DATABASE_DIR, TABLES_DIR));
      const snapshot = await snapshotPostgres(
        client,
        config.database.url,
        chosen,
        {
          dumpFile: path.join(working, DATABASE_DIR, DUMP_FILE),
          exportFile: (table) => path.join(working, DATABASE_DIR, TABLES_DIR, `${table}.jsonl`),
        },
        options.onSnapshot,
      );
      method = chosen;
      tables = snapshot.tables;
      migration = snapshot.migration;
      referenced = snapshot.keys;
    } finally {
      await client.end();
    }
  }

  const databaseFiles: BackupManifest['database']['files'] = [];
  for (const relative of await databaseFilesOf(working)) {
    databaseFiles.push({ path: relative, ...(await hashFile(path.join(working, relative))) });
  }

  const bucket = config.s3 === null ? null : new S3FileStore(config.s3);
  const sources = bucket === null ? await localFiles(path.join(config.dataDir, 'files')) : await bucketFiles(bucket);
  const store = await copyStore(sources, working, previous);
  // Files the snapshot names that were gone when the files were copied: a media conversion that
  // replaced its upload meanwhile, or a deletion. Reported, not fatal: the rest is still good.
  const copiedKeys = new Set(store.list.map((entry) => entry.key));
  const missing = referenced.filter((key) => !copiedKeys.has(key)).sort();

  // The generated secret (SECRET_KEY unset) is part of the data: API keys and push keys are sealed with it.
  let secretKey: BackupManifest['secretKey'] = null;
  const secretFile = path.join(config.dataDir, SECRET_FILE);
  if (await exists(secretFile)) {
    const copied = await copyHashing(createReadStream(secretFile), path.join(working, SECRET_FILE));
    await chmod(path.join(working, SECRET_FILE), 0o600);
    secretKey = { sha256: copied.sha256 };
  }

  const manifest: BackupManifest = {
    format: MANIFEST_FORMAT,
    kithVersion: KITH_VERSION,
    name,
    state: 'incomplete',
    engine: config.database.kind,
    method,
    schemaMigration: migration,
    startedAt: new Date(now).toISOString(),
    finishedAt: new Date(now + (Date.now() - started)).toISOString(),
    database: { tables, files: databaseFiles },
    files: {
      source: bucket === null ? 'local' : 's3',
      ...(config.s3 === null ? {} : { bucket: config.s3.bucket }),
      count: store.list.length,
      bytes: store.list.reduce((sum, entry) => sum + entry.size, 0),
      copied: store.copied,
      linked: store.linked,
      missing,
      list: store.list,
    },
    secretKey,
    verification: { ok: false, problems: [] },
  };
  await writeFile(path.join(working, MANIFEST_FILE), JSON.stringify(manifest, null, 1));

  await options.beforeVerify?.(working);
  // Read back from the disk, as a restore would: the manifest just written, every file.
  const problems = await verifyBackup(working);
  manifest.state = problems.length === 0 ? 'verified' : 'failed';
  manifest.verification = { ok: problems.length === 0, problems };
  await writeFile(path.join(working, MANIFEST_FILE), JSON.stringify(manifest, null, 1));
  const finalFolder = path.join(options.dir, problems.length === 0 ? name : `${name}.failed`);
  await rename(working, finalFolder);
  return reportOf(finalFolder, manifest, Math.round((Date.now() - started) / 100) / 10, methodNote);
}

/** The database files of a backup folder (relative, `/`-separated), found on disk. */
async function databaseFilesOf(folder: string): Promise<string[]> {
  const entries = await readdir(path.join(folder, DATABASE_DIR), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/**
 * Checks a backup folder against its manifest and returns what is wrong (nothing: it is good):
 * every file's size and SHA-256, the database copy's own check (SQLite's integrity_check, the
 * PostgreSQL dump or export read back) and its row counts against the manifest's.
 */
export async function verifyBackup(folder: string): Promise<string[]> {
  let manifest: BackupManifest;
  try {
    manifest = await readManifest(folder);
  } catch (error) {
    return [(error as Error).message];
  }
  const problems: string[] = [];
  const checkFile = async (relative: string, expected: { size: number; sha256: string }) => {
    try {
      const found = await hashFile(path.join(folder, ...relative.split('/')));
      if (found.size !== expected.size || found.sha256 !== expected.sha256) {
        problems.push(
          `${relative}: ${found.size} bytes with SHA-256 ${found.sha256}, the manifest says ${expected.size} bytes with ${expected.sha256}`,
        );
      }
    } catch (error) {
      problems.push(
        `${relative}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : (error as Error).message}`,
      );
    }
  };
  for (const file of manifest.database.files) await checkFile(file.path, file);
  await eachInFlight(manifest.files.list, (entry) => checkFile(`${FILES_DIR}/${entry.key}`, entry));
  if (manifest.secretKey !== null) {
    const found = await hashFile(path.join(folder, SECRET_FILE)).catch(() => null);
    if (found?.sha256 !== manifest.secretKey.sha256) problems.push(`${SECRET_FILE}: missing or changed`);
  }

  let counted: Record<string, number> | null = null;
  try {
    if (manifest.method === 'vacuum-into') {
      const check = await checkSqlite(path.join(folder, DATABASE_DIR, SQLITE_FILE));
      for (const line of check.integrity.slice(0, 10)) problems.push(`integrity_check: ${line}`);
      counted = check.tables;
    } else if (manifest.method === 'pg_dump') {
      counted = await countDumpRows(path.join(folder, DATABASE_DIR, DUMP_FILE));
    } else {
      counted = {};
      for (const table of Object.keys(manifest.database.tables)) {
        counted[table] = await countExportRows(path.join(folder, DATABASE_DIR, TABLES_DIR, `${table}.jsonl`));
      }
    }
  } catch (error) {
    problems.push(`database copy: ${(error as Error).message}`);
  }
  if (counted !== null) problems.push(...countDifferences(manifest.database.tables, counted, 'in the copy'));
  return problems;
}

/** The tables whose counts differ between the manifest and what was counted `where`. */
export function countDifferences(
  expected: Record<string, number>,
  found: Record<string, number>,
  where: string,
): string[] {
  const problems: string[] = [];
  for (const table of new Set([...Object.keys(expected), ...Object.keys(found)])) {
    if (expected[table] !== found[table]) {
      problems.push(`${table}: ${expected[table] ?? 'no'} rows in the manifest, ${found[table] ?? 'no'} ${where}`);
    }
  }
  return problems;
}

/**
 * Keeps the `keep` newest verified backups of `dir` and deletes the older ones, and failed or
 * incomplete folders older than the newest verified backup. The newest verified backup is never
 * deleted. Returns the names deleted.
 */
export async function pruneBackups(dir: string, keep: number): Promise<string[]> {
  const found = await listBackups(dir);
  const verified = found.filter((b) => b.state === 'verified');
  const newest = verified.at(-1);
  if (newest === undefined) return [];
  const kept = new Set(verified.slice(-Math.max(1, keep)).map((b) => b.name));
  const doomed = found.filter((b) => !kept.has(b.name) && b.name < newest.name);
  for (const backup of doomed) await rm(backup.folder, { recursive: true, force: true });
  return doomed.map((b) => b.name);
}
