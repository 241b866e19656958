import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FileStore } from '../src/storage/file-store.js';
import { digest } from '../src/storage/digest.js';

// The behaviour every FileStore has, on the local disk (local-file-store.unit.test.ts) and in S3
// (s3-file-store.int.test.ts): what the callers in features/files, media and maintenance rely on.
// Called inside a describe. Each case works under a folder of its own, so cases share one store.

const MIB = 1024 * 1024;

/** A store to test, and a way to see every key it holds (leftovers of a failed write included). */
export interface StoreUnderTest {
  store: FileStore;
  /** Every key the store holds under `prefix/`, sorted. */
  keys(prefix: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Byte `i` of every generated file: position-dependent, so a shifted or repeated part shows. */
function patternByte(i: number): number {
  return Math.imul(i + 1, 2654435761) >>> 24;
}

function patternBytes(start: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = patternByte(start + i);
  return bytes;
}

/**
 * `size` bytes of the pattern, made chunk by chunk as they are read (never one buffer), in chunks
 * of an odd size so part boundaries fall inside chunks; then `failWith`, if given.
 */
function generated(size: number, failWith?: Error): Readable {
  const chunk = 100_003;
  return Readable.from(
    (async function* () {
      for (let offset = 0; offset < size; offset += chunk) yield patternBytes(offset, Math.min(chunk, size - offset));
      if (failWith !== undefined) throw failWith;
    })(),
  );
}

function sha256Of(size: number): string {
  const hash = createHash('sha256');
  for (let offset = 0; offset < size; offset += MIB) hash.update(patternBytes(offset, Math.min(MIB, size - offset)));
  return hash.digest('hex');
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function text(store: FileStore, key: string): Promise<string> {
  return (await bytesOf(store.read(key))).toString('utf8');
}

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<NodeJS.ErrnoException> {
  try {
    await promise;
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
  return expect.unreachable('expected a rejection');
}

export function fileStoreCases(open: () => Promise<StoreUnderTest>): void {
  let t: StoreUnderTest;
  beforeAll(async () => {
    t = await open();
  });
  afterAll(() => t.close());
  /** A folder no other case uses. */
  const folder = () => `case-${randomUUID()}`;

  it('stores a stream of several upload parts and reads back the same bytes', async () => {
    const key = `${folder()}/big.bin`;
    // 20 MiB: three parts of an S3 multipart upload (8 + 8 + 4 MiB).
    const size = 20 * MIB + 17;
    expect(await t.store.write(key, generated(size))).toEqual({ size });
    expect(await t.store.stat(key)).toEqual({ size });
    expect(await digest(t.store.read(key))).toEqual({ sha256: sha256Of(size), size });
    // A range across the first part boundary.
    const start = 8 * MIB - 10;
    expect((await bytesOf(t.store.read(key, { start, end: start + 19 }))).equals(patternBytes(start, 20))).toBe(true);
  });

  it('reads ranges: first byte, middle, last byte, both ends included', async () => {
    const key = `${folder()}/r.bin`;
    await t.store.write(key, generated(1000));
    const range = async (start: number, end: number) => bytesOf(t.store.read(key, { start, end }));
    expect((await range(0, 0)).equals(patternBytes(0, 1))).toBe(true);
    expect((await range(100, 199)).equals(patternBytes(100, 100))).toBe(true);
    expect((await range(999, 999)).equals(patternBytes(999, 1))).toBe(true);
    expect((await range(0, 999)).equals(patternBytes(0, 1000))).toBe(true);
  });

  it('stores an empty stream, and counts text chunks in bytes', async () => {
    const base = folder();
    expect(await t.store.write(`${base}/empty`, Readable.from([]))).toEqual({ size: 0 });
    expect(await t.store.stat(`${base}/empty`)).toEqual({ size: 0 });
    expect((await bytesOf(t.store.read(`${base}/empty`))).length).toBe(0);
    expect(await t.store.write(`${base}/text`, Readable.from(['été ', 'ok']))).toEqual({ size: 8 });
    expect(await text(t.store, `${base}/text`)).toBe('été ok');
  });

  it('fails the stream, not the call, with ENOENT for an absent key; stat answers null', async () => {
    const key = `${folder()}/absent`;
    // Callers pipe the stream before it fails (routes.ts, workspace.ts): read itself must not throw.
    const stream = t.store.read(key);
    expect((await rejection(bytesOf(stream))).code).toBe('ENOENT');
    expect((await rejection(bytesOf(t.store.read(key, { start: 0, end: 9 })))).code).toBe('ENOENT');
    expect(await t.store.stat(key)).toBeNull();
  });

  it('replaces the bytes on a second write', async () => {
    const key = `${folder()}/same`;
    await t.store.write(key, Readable.from([Buffer.from('the first, longer version')]));
    expect(await t.store.write(key, Readable.from([Buffer.from('second')]))).toEqual({ size: 6 });
    expect(await text(t.store, key)).toBe('second');
    expect(await t.store.stat(key)).toEqual({ size: 6 });
  });

  it('moves bytes to a key in a new folder, and refuses to move an absent key (ENOENT)', async () => {
    const base = folder();
    await t.store.write(`${base}/tmp/upload`, Readable.from([Buffer.from('moved bytes')]));
    await t.store.move(`${base}/tmp/upload`, `${base}/final/deep/file.pdf`);
    expect(await t.store.stat(`${base}/tmp/upload`)).toBeNull();
    expect(await text(t.store, `${base}/final/deep/file.pdf`)).toBe('moved bytes');
    // Onto an existing key: replaced.
    await t.store.write(`${base}/other`, Readable.from([Buffer.from('newer')]));
    await t.store.move(`${base}/other`, `${base}/final/deep/file.pdf`);
    expect(await text(t.store, `${base}/final/deep/file.pdf`)).toBe('newer');
    expect((await rejection(t.store.move(`${base}/absent`, `${base}/x`))).code).toBe('ENOENT');
    expect(await t.keys(base)).toEqual([`${base}/final/deep/file.pdf`]);
  });

  it('deletes a key, or a folder with everything under it, and nothing that only starts alike', async () => {
    const base = folder();
    const keys = [`${base}/f/a`, `${base}/f/sub/b`, `${base}/f/sub/deep/c`, `${base}/fx`, `${base}/g`];
    for (const key of keys) await t.store.write(key, Readable.from([Buffer.from(key)]));
    expect(await t.keys(base)).toEqual([...keys].sort());

    await t.store.delete(`${base}/f`);
    expect(await t.keys(base)).toEqual([`${base}/fx`, `${base}/g`]);
    await t.store.delete(`${base}/g`);
    expect(await t.keys(base)).toEqual([`${base}/fx`]);
    expect(await t.store.stat(`${base}/g`)).toBeNull();
    // Absent keys and folders are fine.
    await t.store.delete(`${base}/g`);
    await t.store.delete(`${base}/nothing/here`);
    expect(await text(t.store, `${base}/fx`)).toBe(`${base}/fx`);
  });

  it('leaves nothing under the key when the source fails, and passes its error on', async () => {
    const base = folder();
    // A small file (one part) and a large one (a multipart upload already sending parts).
    for (const [name, size] of [
      ['small', 3000],
      ['large', 17 * MIB],
    ] as const) {
      const broken = new Error(`the body of ${name} was cut short`);
      expect(await rejection(t.store.write(`${base}/${name}`, generated(size, broken)))).toBe(broken);
      expect(await t.store.stat(`${base}/${name}`)).toBeNull();
      expect((await rejection(bytesOf(t.store.read(`${base}/${name}`)))).code).toBe('ENOENT');
    }
    expect(await t.keys(base)).toEqual([]);
  });

  it('keeps the previous bytes when a rewrite fails', async () => {
    const key = `${folder()}/kept`;
    await t.store.write(key, Readable.from([Buffer.from('previous')]));
    const broken = new Error('disconnected');
    expect(await rejection(t.store.write(key, generated(5000, broken)))).toBe(broken);
    expect(await text(t.store, key)).toBe('previous');
  });

  it('refuses keys that are not relative paths of plain names, in every method', async () => {
    const good = `${folder()}/good`;
    await t.store.write(good, Readable.from([Buffer.from('x')]));
    for (const key of ['../x', 'a/../../x', 'a//b', '/etc/passwd', './a', 'a/', '', 'a b', 'a\\b', 'a/./b']) {
      const refused = `Invalid file store key ${JSON.stringify(key)}`;
      expect(() => t.store.read(key), key).toThrow(refused);
      expect(() => t.store.read(key, { start: 0, end: 0 }), key).toThrow(refused);
      await expect(t.store.write(key, Readable.from([Buffer.from('x')])), key).rejects.toThrow(refused);
      await expect(t.store.stat(key), key).rejects.toThrow(refused);
      await expect(t.store.delete(key), key).rejects.toThrow(refused);
      await expect(t.store.move(good, key), key).rejects.toThrow(refused);
      await expect(t.store.move(key, good), key).rejects.toThrow(refused);
    }
    expect(await text(t.store, good)).toBe('x');
  });

  it('writes several keys at once without mixing them', async () => {
    const base = folder();
    const sizes = [1, 5000, 300_000, 2 * MIB, 9 * MIB, 0, 77, 1 * MIB];
    const results = await Promise.all(
      sizes.map((size, i) =>
        t.store.write(`${base}/n${i}`, Readable.from([Buffer.from(`#${i}:`), patternBytes(i, size)])),
      ),
    );
    expect(results).toEqual(sizes.map((size, i) => ({ size: Buffer.byteLength(`#${i}:`) + size })));
    for (const [i, size] of sizes.entries()) {
      const bytes = await bytesOf(t.store.read(`${base}/n${i}`));
      expect(bytes.equals(Buffer.concat([Buffer.from(`#${i}:`), patternBytes(i, size)])), `n${i}`).toBe(true);
    }
  });
}
