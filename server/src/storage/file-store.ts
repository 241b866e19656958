import type { Readable } from 'node:stream';

/** A byte range, both ends included (as in HTTP `Range`). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where file bytes live (design §1): a local folder in embedded mode, an S3-compatible store in
 * scale-out mode. Keys are relative paths of `[A-Za-z0-9._/-]` chosen by the server, never by a
 * client. Writes take a stream, so a file is never held in memory as a whole.
 */
export interface FileStore {
  /**
   * Stores the bytes of `source` under `key`, replacing what was there. When the stream fails, the
   * partial bytes are removed and the error is passed on. Resolves with the size written.
   */
  write(key: string, source: Readable): Promise<{ size: number }>;
  /**
   * The bytes under `key`, or only `range` of them. An absent key fails the stream (not the call)
   * with an error whose `code` is 'ENOENT'.
   */
  read(key: string, range?: ByteRange): Readable;
  /** The size of what is under `key`, or null when nothing is; a store that fails rejects. */
  stat(key: string): Promise<{ size: number } | null>;
  /** Moves bytes to another key (a finished upload leaving its temporary key); 'ENOENT' when absent. */
  move(from: string, to: string): Promise<void>;
  /** Removes `key`, or every key under `key/` when it names a folder; absent keys are fine. */
  delete(key: string): Promise<void>;
  /**
   * Resolves when the store answers and holds what it needs (the bucket exists), rejects otherwise;
   * for the readiness probe. Stores that cannot be unreachable (a local folder) leave it out.
   */
  ready?(): Promise<void>;
}

const KEY = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/**
 * Refuses a key that is not a relative path of `[A-Za-z0-9._-]` segments, or that has a `.` or
 * `..` segment. Every store checks with this one rule, so no key can leave the local root and both
 * stores accept exactly the same keys.
 */
export function checkFileKey(key: string): string {
  if (!KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..')) {
    throw new Error(`Invalid file store key ${JSON.stringify(key)}`);
  }
  return key;
}
