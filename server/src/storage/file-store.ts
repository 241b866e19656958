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
  /** The bytes under `key`, or only `range` of them. Fails (ENOENT) when the key is absent. */
  read(key: string, range?: ByteRange): Readable;
  /** The size of what is under `key`, or null when nothing is. */
  stat(key: string): Promise<{ size: number } | null>;
  /** Moves bytes to another key (a finished upload leaving its temporary key). */
  move(from: string, to: string): Promise<void>;
  /** Removes `key`, or every key under `key/` when it names a folder; absent keys are fine. */
  delete(key: string): Promise<void>;
}
