import path from 'node:path';
import type { Config } from '../config.js';
import type { FileStore } from './file-store.js';
import { LocalFileStore } from './local-file-store.js';

/** The store of file bytes the configuration asks for: the S3 bucket when set, else `<DATA_DIR>/files`. */
export async function createFileStore(config: Pick<Config, 's3' | 'dataDir'>): Promise<FileStore> {
  if (config.s3 === null) return new LocalFileStore(path.join(config.dataDir, 'files'));
  // The AWS SDK (6 MB of heap) is loaded only where a bucket is configured.
  const { S3FileStore } = await import('./s3-file-store.js');
  return new S3FileStore(config.s3);
}
