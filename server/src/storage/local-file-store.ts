import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ByteRange, FileStore } from './file-store.js';

const KEY = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** The embedded FileStore: one folder on the local disk (`<DATA_DIR>/files`). */
export class LocalFileStore implements FileStore {
  constructor(private readonly root: string) {}

  /** The path of a key; keys are checked so none can leave the root. */
  private pathOf(key: string): string {
    if (!KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..')) {
      throw new Error(`Invalid file store key ${JSON.stringify(key)}`);
    }
    return path.join(this.root, key);
  }

  async write(key: string, source: Readable): Promise<{ size: number }> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    // Written under a temporary name, renamed when complete: readers never see half a file.
    const partial = `${target}.part-${process.pid}-${Math.random().toString(36).slice(2)}`;
    let size = 0;
    source.on('data', (chunk: Buffer) => {
      size += chunk.length;
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
    try {
      const info = await stat(this.pathOf(key));
      return info.isFile() ? { size: info.size } : null;
    } catch {
      return null;
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
