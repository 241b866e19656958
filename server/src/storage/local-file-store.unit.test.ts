import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fileStoreCases } from '../../test/file-store-cases.js';
import { isPartialWrite, LocalFileStore } from './local-file-store.js';

describe('LocalFileStore', () => {
  fileStoreCases(() => {
    const root = mkdtempSync(path.join(tmpdir(), 'kith-files-'));
    return Promise.resolve({
      store: new LocalFileStore(root),
      // Every file, the temporary `.part-…` ones of a write in progress included.
      async keys(prefix) {
        const entries = await readdir(path.join(root, prefix), { recursive: true, withFileTypes: true }).catch(
          (error: NodeJS.ErrnoException) => {
            if (error.code === 'ENOENT') return [];
            throw error;
          },
        );
        return entries
          .filter((entry) => entry.isFile())
          .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
          .sort();
      },
      close() {
        rmSync(root, { recursive: true, force: true });
        return Promise.resolve();
      },
    });
  });
});

describe('isPartialWrite', () => {
  it('tells the name of a write in progress from the keys of the store', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'kith-files-'));
    try {
      const source = new PassThrough();
      const writing = new LocalFileStore(root).write('a/photo.jpg', source);
      source.write('half');
      let names: string[] = [];
      await expect.poll(async () => (names = await readdir(path.join(root, 'a')).catch(() => []))).toHaveLength(1);
      expect(isPartialWrite(`a/${names[0]}`)).toBe(true);
      source.end();
      await writing;
      expect(isPartialWrite('a/photo.jpg')).toBe(false);
      expect(isPartialWrite('derived/0b6d/thumbnail-720x99999-1712345678901.jpg')).toBe(false);
      expect(isPartialWrite('tmp/0b6d2b3e-8d2c-4d6e-9f51-5e0b2d0d6a11')).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
