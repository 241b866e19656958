import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe } from 'vitest';
import { fileStoreCases } from '../../test/file-store-cases.js';
import { LocalFileStore } from './local-file-store.js';

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
