import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

// A backup is one folder of BACKUP_DIR (or of `backup --to`), named after its start time so that
// names sort by age: `kith-backup-2026-11-28T03-00-00-000Z`. While it is written its name ends in
// `.incomplete`; once verified it loses the suffix, and a backup that failed its verification ends
// in `.failed` (kept for a look, never restored, never counted as a good one).

/** Name prefix of every backup folder. */
export const BACKUP_PREFIX = 'kith-backup-';
export const MANIFEST_FILE = 'manifest.json';
/** Version of the manifest's layout. */
export const MANIFEST_FORMAT = 1;

export type BackupState = 'verified' | 'failed' | 'incomplete';

/** One copied file: its key in the file store, size, SHA-256, and what says it is unchanged next time. */
export interface FileEntry {
  key: string;
  size: number;
  sha256: string;
  /** Local files: the modification time it had (with the size, "unchanged since the last backup"). */
  mtimeMs?: number;
  /** S3 objects: the ETag it had. */
  etag?: string;
}

/** What `manifest.json` holds: everything the verification and a restore need. */
export interface BackupManifest {
  format: number;
  /** Kith's version that wrote it. */
  kithVersion: string;
  name: string;
  state: BackupState;
  engine: 'sqlite' | 'postgres';
  /** How the database was copied. */
  method: 'vacuum-into' | 'pg_dump' | 'export';
  /** The last migration of the copied database: a restore makes the same schema, the server migrates on. */
  schemaMigration: string | null;
  startedAt: string;
  finishedAt: string;
  database: {
    /** Rows per table in the snapshot (the migrations' own tables apart). */
    tables: Record<string, number>;
    /** The database's files in the backup folder (relative paths) with their size and SHA-256. */
    files: { path: string; size: number; sha256: string }[];
  };
  files: {
    /** Where the file store was: DATA_DIR/files or the S3 bucket (by name). */
    source: 'local' | 's3';
    bucket?: string;
    count: number;
    bytes: number;
    /** Copied by this backup; the others are hard links to the previous backup's copy. */
    copied: number;
    linked: number;
    /** Keys the database copy names that were no longer in the store when the files were copied. */
    missing: string[];
    list: FileEntry[];
  };
  /** DATA_DIR/secret.key copied as `secret.key` (its checksum), or null when SECRET_KEY came from the environment. */
  secretKey: { sha256: string } | null;
  verification: { ok: boolean; problems: string[] };
}

/** A backup folder found in a backup directory. */
export interface FoundBackup {
  name: string;
  folder: string;
  state: BackupState;
}

/** The state a backup folder's name says. */
export function stateOfName(name: string): BackupState {
  if (name.endsWith('.failed')) return 'failed';
  if (name.endsWith('.incomplete')) return 'incomplete';
  return 'verified';
}

/** The backups in `dir`, oldest first (an absent directory holds none). */
export async function listBackups(dir: string): Promise<FoundBackup[]> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .filter((name) => name.startsWith(BACKUP_PREFIX))
    .sort()
    .map((name) => ({ name, folder: path.join(dir, name), state: stateOfName(name) }));
}

/** Reads a backup's manifest; throws a readable error when it is missing or not one. */
export async function readManifest(folder: string): Promise<BackupManifest> {
  let text: string;
  try {
    text = await readFile(path.join(folder, MANIFEST_FILE), 'utf8');
  } catch {
    throw new Error(`${folder} is no Kith backup: it has no ${MANIFEST_FILE}`);
  }
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(text) as BackupManifest;
  } catch {
    throw new Error(`${path.join(folder, MANIFEST_FILE)} is damaged: it is not JSON`);
  }
  if (manifest.format !== MANIFEST_FORMAT || !Array.isArray(manifest.files?.list)) {
    throw new Error(`${path.join(folder, MANIFEST_FILE)} is not a manifest this version of Kith reads`);
  }
  return manifest;
}
