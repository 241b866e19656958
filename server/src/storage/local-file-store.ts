import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkFileKey, type ByteRange, type FileStore } from './file-store.js';

/**
 * A write in progress is named `<key>.part-<pid>-<random>` and renamed to `<key>` when complete, so
 * readers never see half a file; a process that died mid-write leaves that name behind.
 */
function partialPath(target: string): string {
  return `${target}.part-${process.pid}-${Math.random().toString(36).slice(2)}`;
}
const PARTIAL = /\.part-\d+-[a-z0-9]*$/;

/** True for the name of a write that never completed (its process died): no key of the store. */
export function isPartialWrite(key: string): boolean {
  return PARTIAL.test(key);
}

/** The embedded FileStore: one folder on the local disk (`<DATA_DIR>/files`). */
export class LocalFileStore implements FileStore {
  constructor(private readonly root: string) {}

  /** The path of a key; keys are checked so none can leave the root. */
  private pathOf(key: string): string {
    return path.join(this.root, checkFileKey(key));
  }

  async write(key: string, source: Readable): Promise<{ size: number }> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    const partial = partialPath(target);
    let size = 0;
    // In bytes, text chunks (Readable.from(['…'])) too: what the file holds.
    source.on('data', (chunk: Buffer | string) => {
      size += Buffer.byteLength(chunk);
    });
    try {
      await pipeline(source, createWriteStream(partial, { flags: 'wx' }));
      await rename(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return { size };
  }

  read(key: string, range?: ByteRange): Readable {
    return createReadStream(this.pathOf(key), range === undefined ? {} : { start: range.start, end: range.end });
  }

  async stat(key: string): Promise<{ size: number } | null> {
    const file = this.pathOf(key);
    try {
      const info = await stat(file);
      return info.isFile() ? { size: info.size } : null;
    } catch (error) {
      // Absent (ENOTDIR: a part of the path is a file). A failing disk is not "absent": callers
      // would make the bytes again, or answer 404 for a file that exists.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw error;
    }
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.pathOf(to);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(this.pathOf(from), target);
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true, recursive: true });
  }
}
