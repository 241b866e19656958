import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';

/** The SHA-256 (hex) and length of a stream's bytes, read without keeping them. */
export async function digest(stream: Readable): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}
