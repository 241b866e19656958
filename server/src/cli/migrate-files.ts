import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline, Transform } from 'node:stream';
import { checkFileKey, type FileStore } from '../storage/file-store.js';
import { isPartialWrite } from '../storage/local-file-store.js';
import { digest } from '../storage/digest.js';

// The files half of `migrate-data` (migrate-data.ts): every key of the local store copied into
// another store, then read back and hashed. Re-runnable: a key the target already holds with the
// source's size and SHA-256 is left as it is.

/**
 * Files copied at once. Each costs the store a few round trips (a HEAD, the upload, the read back),
 * which a handful in flight hide; every one streams, so memory stays a few buffers per file (plus
 * the S3 store's parts for the largest).
 */
const FILES_IN_FLIGHT = 4;

export interface FileCopyReport {
  /** Keys under the local store, and their bytes: each one verified in the target. */
  count: number;
  bytes: number;
  /** Written by this run. */
  copied: number;
  /** Already in the target with the same checksum (an earlier, interrupted run). */
  alreadyThere: number;
  /** Names under the folder that are no keys of the store (writes cut by a crash, foreign files). */
  skipped: string[];
}

export interface FileCopyOptions {
  /** Told after each file, with the totals so far. */
  onFile(done: { count: number; bytes: number; totalCount: number; totalBytes: number }): Promise<void> | void;
}

interface SourceFile {
  key: string;
  file: string;
  size: number;
}

/** Every file under `root` as a store key (`/`-separated), in key order; partial writes and foreign names apart. */
async function listSourceFiles(root: string): Promise<{ files: SourceFile[]; skipped: string[] }> {
  let entries;
  try {
    entries = await readdir(root, { recursive: true, withFileTypes: true });
  } catch (error) {
    // An instance that never stored a file has no folder.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { files: [], skipped: [] };
    throw error;
  }
  const files: SourceFile[] = [];
  const skipped: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const key = path.relative(root, file).split(path.sep).join('/');
    let valid = !isPartialWrite(key);
    try {
      checkFileKey(key);
    } catch {
      valid = false;
    }
    if (!valid) {
      skipped.push(key);
      continue;
    }
    files.push({ key, file, size: (await stat(file)).size });
  }
  files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { files, skipped: skipped.sort() };
}

/**
 * Copies one file unless the target holds the same bytes, then reads it back: returns whether it
 * was written, or throws when what the target holds differs from the source.
 */
async function copyFile(source: SourceFile, target: FileStore): Promise<boolean> {
  const present = await target.stat(source.key);
  if (present?.size === source.size) {
    const [mine, theirs] = await Promise.all([digest(createReadStream(source.file)), digest(target.read(source.key))]);
    if (mine.sha256 === theirs.sha256 && theirs.size === source.size) return false;
  }
  const hash = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  // The store reads the stream as it uploads: the file is never whole in memory. A failing read
  // fails the pipeline's last stream, which the store's write sees.
  await target.write(
    source.key,
    pipeline(createReadStream(source.file), hashing, () => undefined),
  );
  const written = hash.digest('hex');
  const back = await digest(target.read(source.key));
  if (back.sha256 !== written || back.size !== source.size) {
    throw new Error(
      `${source.key}: the target store gives back ${back.size} bytes with SHA-256 ${back.sha256}, the source has ${source.size} bytes with ${written}`,
    );
  }
  return true;
}

/** Copies every key of the local store under `root` into `target`, each verified by reading it back. */
export async function copyFiles(root: string, target: FileStore, options: FileCopyOptions): Promise<FileCopyReport> {
  const { files, skipped } = await listSourceFiles(root);
  const totalBytes = files.reduce((sum, file) => sum + file.size, 0);
  const report: FileCopyReport = { count: 0, bytes: 0, copied: 0, alreadyThere: 0, skipped };
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (failure === null && next < files.length) {
      const source = files[next] as SourceFile;
      next += 1;
      try {
        if (await copyFile(source, target)) report.copied += 1;
        else report.alreadyThere += 1;
        report.count += 1;
        report.bytes += source.size;
        await options.onFile({ count: report.count, bytes: report.bytes, totalCount: files.length, totalBytes });
      } catch (error) {
        // The other workers stop after their current file, so nothing is still writing when this returns.
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: FILES_IN_FLIGHT }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
  return report;
}
