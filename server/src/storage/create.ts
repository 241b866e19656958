import path from 'node:path';
import type { Config } from '../config.js';
import type { FileStore } from './file-store.js';
import { LocalFileStore } from './local-file-store.js';
import { S3FileStore } from './s3-file-store.js';

/** The store of file bytes the configuration asks for: the S3 bucket when set, else `<DATA_DIR>/files`. */
export function createFileStore(config: Pick<Config, 's3' | 'dataDir'>): FileStore {
  return config.s3 === null ? new LocalFileStore(path.join(config.dataDir, 'files')) : new S3FileStore(config.s3);
}
