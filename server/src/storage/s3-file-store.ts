import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PassThrough, pipeline, Readable } from 'node:stream';
import type { S3Config } from '../config.js';
import { checkFileKey, type ByteRange, type FileStore } from './file-store.js';

/**
 * Parts of a streamed upload: 8 MiB each (S3's minimum is 5 MiB), two sent at a time. An upload
 * holds at most about three parts in memory (two in flight, one filling), whatever the file's size;
 * 10,000 parts of 8 MiB allow 78 GiB, far above any upload limit.
 */
const PART_BYTES = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

/**
 * Connections to the store. A download holds its connection for as long as its reader takes (a
 * video watched from a phone), so the SDK's 50 would make the 51st viewer wait for a free one.
 */
const MAX_CONNECTIONS = 256;

/** S3 takes at most 1000 keys in one DeleteObjects, and lists at most 1000 a page. */
const DELETE_BATCH = 1000;

/**
 * The scale-out FileStore: one bucket of an S3-compatible store (AWS, MinIO, Garage, R2…), shared
 * by every server process. Keys are the object names, unchanged. Objects appear only once written
 * completely (S3 semantics), so readers never see half a file, as with the local store's rename.
 */
export class S3FileStore implements FileStore {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(s3: S3Config) {
    this.bucket = s3.bucket;
    const config: S3ClientConfig = {
      region: s3.region,
      forcePathStyle: s3.forcePathStyle,
      // The SDK's default checksums (CRC32 on every request, "aws-chunked" bodies) are refused by
      // several S3-compatible stores; only the operations that S3 requires them for get one.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { httpAgent: { maxSockets: MAX_CONNECTIONS }, httpsAgent: { maxSockets: MAX_CONNECTIONS } },
    };
    // No endpoint means AWS itself; no keys means the SDK's own chain (AWS_* variables, an instance role).
    if (s3.endpoint !== null) config.endpoint = s3.endpoint;
    if (s3.accessKeyId !== null && s3.secretAccessKey !== null) {
      config.credentials = { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey };
    }
    this.client = new S3Client(config);
  }

  async write(key: string, source: Readable): Promise<{ size: number }> {
    checkFileKey(key);
    let size = 0;
    // The source's own error is what callers expect (an ApiError from the upload meter, a broken
    // request body): the uploader may replace it with the failure of its clean-up request.
    let sourceError: unknown;
    async function* counted(): AsyncGenerator<Uint8Array> {
      try {
        // Text chunks (Readable.from(['…'])) are counted in bytes, as they are stored.
        for await (const chunk of source as AsyncIterable<Uint8Array | string>) {
          const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
          size += bytes.byteLength;
          yield bytes;
        }
      } catch (error) {
        sourceError = error;
        throw error;
      }
    }
    const body = Readable.from(counted());
    // One PutObject for a file of one part, a multipart upload otherwise. On failure the multipart
    // upload is aborted, so no part is kept; if even the abort fails, the parts stay invisible
    // (never an object) until the bucket's lifecycle rule removes them (.env.example, S3_BUCKET).
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body },
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      // A store that fails stops the reading, as a failing disk does for the local store.
      body.destroy();
      source.destroy();
      throw sourceError ?? error;
    }
    return { size };
  }

  read(key: string, range?: ByteRange): Readable {
    checkFileKey(key);
    const out = new PassThrough();
    const abort = new AbortController();
    let answered = false;
    // A reader gone before the store answered (a viewer who closed the page) cancels the request;
    // once answered, the pipeline below ends the download when the reader goes.
    out.once('close', () => {
      if (!answered) abort.abort();
    });
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }),
    });
    this.client.send(command, { abortSignal: abort.signal }).then(
      (answer) => {
        answered = true;
        if (!(answer.Body instanceof Readable)) {
          out.destroy(new Error(`The S3 store sent no body for ${key}`));
          return;
        }
        // HTTP lets a server send more than the range asked (the whole object, or s3rver's whole
        // rest for `bytes=0-0`); the route has announced the range's length, so the rest is cut.
        const served = servedStart(answer.ContentRange);
        if (range === undefined || (served === range.start && answer.ContentLength === range.end - range.start + 1)) {
          pipeline(answer.Body, out, () => undefined);
        } else if (served <= range.start) {
          pipeline(answer.Body, slice(range.start - served, range.end - range.start + 1), out, () => undefined);
        } else {
          answer.Body.destroy();
          out.destroy(
            new Error(
              `The S3 store sent ${answer.ContentRange ?? '?'} of ${key} for bytes=${range.start}-${range.end}`,
            ),
          );
        }
      },
      (error: unknown) => {
        answered = true;
        // A range starting past the end: the local store reads nothing there, so nothing it is.
        if (errorName(error) === 'InvalidRange') out.end();
        else out.destroy(isMissing(error) ? missingKey(key, error) : toError(error));
      },
    );
    return out;
  }

  async stat(key: string): Promise<{ size: number } | null> {
    checkFileKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: head.ContentLength ?? 0 };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /**
   * A copy then a delete: S3 has no rename. One CopyObject copies at most 5 GiB; configuration
   * refuses upload limits above that with S3 (config.ts), and the files moved are uploads, so a
   * multipart copy is never needed.
   */
  async move(from: string, to: string): Promise<void> {
    checkFileKey(from);
    checkFileKey(to);
    if (from === to) {
      // S3 refuses to copy an object onto itself; the local rename does nothing.
      if ((await this.stat(from)) === null) throw missingKey(from);
      return;
    }
    try {
      await this.client.send(
        new CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: `${this.bucket}/${encodeKey(from)}` }),
      );
    } catch (error) {
      throw isMissing(error) ? missingKey(from, error) : error;
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: from }));
  }

  async delete(key: string): Promise<void> {
    checkFileKey(key);
    // S3 answers a delete of an absent object with success, like `rm --force`.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    // A "folder" is every object whose name starts with `key/` (not `key` alone: `a` is no folder of `ab`).
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: `${key}/`,
          MaxKeys: DELETE_BATCH,
          ...(token === undefined ? {} : { ContinuationToken: token }),
        }),
      );
      const objects = (page.Contents ?? []).flatMap((object) =>
        object.Key === undefined ? [] : [{ Key: object.Key }],
      );
      if (objects.length > 0) {
        const answer = await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: objects, Quiet: true } }),
        );
        // A batch delete answers 200 even when some keys could not go: those are listed.
        const failed = answer.Errors ?? [];
        if (failed.length > 0) {
          const first = failed[0];
          throw new Error(
            `The S3 store kept ${failed.length} object(s) under ${key}/ (first: ${first?.Key ?? '?'}: ${first?.Code ?? '?'} ${first?.Message ?? ''})`,
          );
        }
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  /**
   * Every object of the bucket, in key order, a page of up to 1000 at a time (for backups, which
   * copy the bucket's objects and skip those unchanged since the previous backup by their ETag).
   */
  async *list(): AsyncGenerator<{ key: string; size: number; etag: string }> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          MaxKeys: DELETE_BATCH,
          ...(token === undefined ? {} : { ContinuationToken: token }),
        }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        yield { key: object.Key, size: object.Size ?? 0, etag: object.ETag ?? '' };
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  async ready(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      const status = statusOf(error);
      const why =
        status === 404
          ? 'does not exist'
          : status === 403
            ? 'refuses access (check the credentials and the bucket policy)'
            : `does not answer (${errorName(error) ?? toError(error).message})`;
      throw new Error(`The S3 bucket ${this.bucket} ${why}`, { cause: error });
    }
  }
}

/** Where the bytes of a GetObject answer start: `bytes 5-9/10` → 5; no Content-Range is the whole object. */
function servedStart(contentRange: string | undefined): number {
  const match = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(contentRange ?? '');
  return match === null ? 0 : Number(match[1]);
}

/** Passes `length` bytes after skipping `skip`, then stops reading (which ends the download). */
function slice(skip: number, length: number): (source: AsyncIterable<Buffer>) => AsyncGenerator<Buffer> {
  return async function* (source) {
    let toSkip = skip;
    let left = length;
    for await (const chunk of source) {
      const from = Math.min(toSkip, chunk.length);
      toSkip -= from;
      const part = chunk.subarray(from, from + left);
      left -= part.length;
      if (part.length > 0) yield part;
      if (left === 0) return;
    }
  };
}

/** The error a read or a move of an absent key fails with: the code the local store's gives (ENOENT). */
function missingKey(key: string, cause?: unknown): Error {
  return Object.assign(new Error(`ENOENT: no object ${key} in the S3 store`, { cause }), { code: 'ENOENT' });
}

/** A missing object: NoSuchKey in a body, or a bare 404 (HEAD answers have no body to name it). */
function isMissing(error: unknown): boolean {
  const name = errorName(error);
  return name === 'NoSuchKey' || name === 'NotFound' || (name !== 'NoSuchBucket' && statusOf(error) === 404);
}

function errorName(error: unknown): string | undefined {
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : undefined;
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** A key as the `x-amz-copy-source` header wants it: URL-encoded, slashes kept. */
function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}
