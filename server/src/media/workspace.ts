import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AppContext } from '../context.js';

/**
 * A private folder on the local disk for the tools (ffmpeg and pdftoppm need seekable files; the
 * FileStore may be remote), under `<DATA_DIR>/work` rather than /tmp, which can be small. Removed
 * when `work` ends, whatever happens.
 */
export async function withWorkspace<T>(ctx: Pick<AppContext, 'config'>, work: (dir: string) => Promise<T>): Promise<T> {
  const root = path.join(ctx.config.dataDir, 'work');
  await mkdir(root, { recursive: true });
  const dir = await mkdtemp(path.join(root, 'media-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Copies stored bytes to a local file. */
export async function fetchToFile(ctx: Pick<AppContext, 'files'>, key: string, file: string): Promise<void> {
  await pipeline(ctx.files.read(key), createWriteStream(file));
}

/** Stores a local file under `key`; resolves with its size. */
export function storeFile(ctx: Pick<AppContext, 'files'>, file: string, key: string): Promise<{ size: number }> {
  return ctx.files.write(key, createReadStream(file));
}
