import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import { UPLOAD_EXTENSIONS, type UploadKind } from '@kith/common';
import { fileTypeFromBuffer } from 'file-type';
import type { Metadata, OutputInfo } from 'sharp';
import { loadSharp } from '../../media/sharp.js';
import type { AppContext } from '../../context.js';
import { transaction } from '../../db/transaction.js';
import { ApiError, featureDisabled } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { uploadAvailable } from '../../media/tools.js';
import { Throttle } from '../../lib/throttles.js';
import type { FileRow, UserRow } from '../../db/rows.js';
import { isShowable, MAX_IMAGE_RATIO } from './images.js';
import { presentFile, type FileObject } from './presenter.js';
import { insertFile } from './queries.js';
import { UploadReservation } from './quota.js';

/** Longer side of a stored image; very tall or wide images (ratio > 10) get their width capped. */
const MAX_IMAGE_SIDE = 4096;
const MAX_IMAGE_PIXELS = 100_000_000;
/** Enough leading bytes for `file-type` to recognise every accepted format. */
const SNIFF_BYTES = 4100;

export const missingFile = () => new ApiError(400, 'missing_file', 'Send the file in a part named file', 'file');
const unsupported = (message = 'This type of file is not accepted') =>
  new ApiError(415, 'unsupported_file_type', message, 'file');
const tooLarge = (message = 'The file is larger than this instance allows') =>
  new ApiError(413, 'file_too_large', message, 'file');

/**
 * Counts the bytes of an upload as they pass. The first bytes decide the format (`decide`, which may
 * refuse it and returns the byte limit of its kind); past that limit the stream fails at once, so
 * an oversized upload is never read to its end. No byte goes on before the storage quotas made
 * room for it (`reservation`), so an upload past a quota fails as soon as it passes it.
 */
class UploadMeter extends Transform {
  private head: Buffer[] = [];
  private headLength = 0;
  private limit = -1;
  bytes = 0;

  constructor(
    private readonly decide: (head: Buffer) => Promise<number>,
    private readonly reservation: UploadReservation,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.limit >= 0) {
      if (this.bytes > this.limit) callback(tooLarge());
      else this.reservation.cover(this.bytes).then(() => callback(null, chunk), callback);
      return;
    }
    this.head.push(chunk);
    this.headLength += chunk.length;
    if (this.headLength < SNIFF_BYTES) callback();
    else this.release(callback);
  }

  override _flush(callback: TransformCallback): void {
    if (this.limit >= 0) callback();
    else if (this.headLength === 0) callback(missingFile());
    else this.release(callback);
  }

  private release(callback: TransformCallback): void {
    const head = Buffer.concat(this.head);
    this.head = [];
    this.decide(head)
      .then(async (limit) => {
        this.limit = limit;
        if (this.bytes > limit) throw tooLarge();
        await this.reservation.cover(this.bytes);
        this.push(head);
        callback();
      })
      .catch(callback);
  }
}

/** The original name without path, control characters or more than 255 characters (§2.6). */
export function cleanFileName(raw: string | undefined, fallback: string): string {
  const base = (raw ?? '').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  const clean = base.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim();
  return Array.from(clean === '' ? fallback : clean)
    .slice(0, 255)
    .join('')
    .slice(0, 255);
}

interface Detected {
  kind: UploadKind;
  ext: string;
  mime: string;
}

/** The stored form of an image (docs/api §7.1). */
interface ProcessedImage {
  ext: string;
  mime: string;
  size: number;
  width: number | null;
  height: number | null;
}

/**
 * Cleans an uploaded image from `sourceKey` into `targetKey`: EXIF orientation applied, every
 * metadata removed (sharp keeps none unless asked), the longer side ≤ 4096 px (width capped for a
 * ratio > 10), JPEG/PNG/WebP/GIF kept (animation included), HEIC/AVIF/TIFF/BMP turned into JPEG.
 * Refused (415): an image that cannot be read, or one whose sides are more than 1:50 apart.
 */
async function processImage(ctx: AppContext, sourceKey: string, id: string): Promise<ProcessedImage> {
  const sharp = await loadSharp();
  let meta: Metadata;
  try {
    meta = await ctx.files
      .read(sourceKey)
      .pipe(sharp({ limitInputPixels: false }))
      .metadata();
  } catch {
    throw unsupported('This image cannot be read');
  }
  const width = meta.width;
  const frameHeight = meta.pageHeight ?? meta.height;
  if (!width || !frameHeight) throw unsupported('This image cannot be read');
  if (width * frameHeight > MAX_IMAGE_PIXELS) throw tooLarge('The image is larger than 100 megapixels');
  // The ratio survives the cleaning below; past it no thumbnail could show the picture (images.ts).
  if (!isShowable(width, frameHeight)) {
    throw unsupported(
      `This image is too long and narrow to be shown (one side over ${MAX_IMAGE_RATIO} times the other)`,
    );
  }

  const pages = meta.pages ?? 1;
  const animated = (meta.format === 'gif' || meta.format === 'webp') && pages > 1;
  const swap = (meta.orientation ?? 1) >= 5;
  const w = swap ? frameHeight : width;
  const h = swap ? width : frameHeight;

  let image = sharp({ animated, limitInputPixels: false }).autoOrient();
  if (Math.max(w, h) / Math.min(w, h) > 10) {
    if (w > MAX_IMAGE_SIDE) image = image.resize({ width: MAX_IMAGE_SIDE });
  } else if (Math.max(w, h) > MAX_IMAGE_SIDE) {
    image = image.resize({ width: MAX_IMAGE_SIDE, height: MAX_IMAGE_SIDE, fit: 'inside' });
  }
  let ext: string;
  let mime: string;
  switch (meta.format) {
    case 'png':
      image = image.png();
      [ext, mime] = ['png', 'image/png'];
      break;
    case 'webp':
      image = image.webp({ quality: 90 });
      [ext, mime] = ['webp', 'image/webp'];
      break;
    case 'gif':
      image = image.gif();
      [ext, mime] = ['gif', 'image/gif'];
      break;
    default:
      // JPEG stays JPEG; HEIC, AVIF, TIFF and BMP become JPEG (transparency on white).
      image = image.flatten({ background: '#ffffff' }).jpeg({ quality: 90 });
      [ext, mime] = ['jpg', 'image/jpeg'];
  }
  let info: OutputInfo | undefined;
  image.on('info', (i: OutputInfo) => {
    info = i;
  });
  const output = pipeline(ctx.files.read(sourceKey), image, () => undefined);
  let size: number;
  try {
    ({ size } = await ctx.files.write(`${id}.${ext}`, output));
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw unsupported('This image cannot be read');
  }
  return { ext, mime, size, width: info?.width ?? null, height: info?.pageHeight ?? info?.height ?? null };
}

/** An upload whose bytes are stored and whose row is ready, not yet recorded (recordUpload). */
export interface ReceivedUpload {
  row: FileRow;
  job: 'process-video' | 'process-audio' | null;
  /** The room the upload claimed under the quotas, given back once the row counts the bytes. */
  reservation: UploadReservation;
}

/**
 * The first half of POST /api/files (docs/api §7.1): streams one upload into the store while
 * counting it, detects its format from the first bytes, refuses what is not accepted, and stores
 * the bytes under the file's key. Images are cleaned here and will be answered `ready`; PDFs are
 * kept as they are (`ready`); video and audio are kept and will be answered `raw` with progress 0.
 * Nothing is in the database yet: the rest of the request body may still turn out broken.
 * On failure nothing is left in the store.
 */
export async function receiveUpload(
  ctx: AppContext,
  user: Pick<UserRow, 'id'> | null,
  source: Readable,
  fileName: string | undefined,
  options: { id?: string } = {},
): Promise<ReceivedUpload> {
  // The Zusam import (cli/import-zusam.ts) keeps a file's old id, so its old URL keeps working.
  const id = options.id ?? newId();
  const tmpKey = `tmp/${id}`;
  let detected: Detected | undefined;
  const reservation = new UploadReservation(ctx, user?.id ?? null);
  const meter = new UploadMeter(async (head) => {
    const type = await fileTypeFromBuffer(head);
    const kind = type === undefined ? undefined : UPLOAD_EXTENSIONS[type.ext];
    if (type === undefined || kind === undefined) throw unsupported();
    if (!uploadAvailable(ctx.config, kind))
      throw featureDisabled(`Uploads of ${kind} files are turned off on this instance`);
    detected = { kind, ext: type.ext, mime: type.mime };
    return ctx.config.uploadMaxBytes[kind];
  }, reservation);
  const counted = pipeline(source, meter, () => undefined);
  let storedKey: string | null = null;

  try {
    // A stream that fails midway (a body cut short) rejects here; the store removes what it wrote.
    await ctx.files.write(tmpKey, counted);
    if (detected === undefined) throw missingFile();
    const { kind } = detected;
    const now = ctx.clock.now();
    if (kind === 'image') {
      const image = await processImage(ctx, tmpKey, id);
      storedKey = `${id}.${image.ext}`;
      await ctx.files.delete(tmpKey);
      const row = fileRow(id, user, now, { ...detected, ext: image.ext, mime: image.mime }, image.size, fileName, {
        status: 'ready',
        width: image.width,
        height: image.height,
      });
      return { row, job: null, reservation };
    }
    storedKey = `${id}.${detected.ext}`;
    await ctx.files.move(tmpKey, storedKey);
    // Video and audio are answered `raw` with progress 0; their job (src/features/files/media-jobs.ts)
    // converts them and moves them to `ready`. A PDF's preview is made on first request.
    const status = kind === 'pdf' ? 'ready' : 'raw';
    const row = fileRow(id, user, now, detected, meter.bytes, fileName, { status, width: null, height: null });
    return { row, job: kind === 'video' ? 'process-video' : kind === 'audio' ? 'process-audio' : null, reservation };
  } catch (error) {
    await reservation.release();
    await ctx.files.delete(tmpKey);
    if (storedKey !== null) await ctx.files.delete(storedKey);
    await ctx.files.delete(`derived/${id}`);
    if ((error as { code?: unknown } | null)?.code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    throw error;
  }
}

/**
 * The second half of POST /api/files, once the whole body was read: records the file and, for
 * video and audio, its conversion job, in one transaction; answers the File object.
 */
export async function recordUpload(ctx: AppContext, upload: ReceivedUpload): Promise<FileObject> {
  const { row, job } = upload;
  try {
    // The job exists exactly when the file does: both in one transaction.
    await transaction(ctx, async (tx, effects) => {
      // The row's trigger counts the stored bytes (migration 0021); the claim made while they
      // streamed is given back in the same commit.
      await insertFile(tx, row);
      await upload.reservation.settle(tx);
      if (job !== null) await effects.enqueue(job, { fileId: row.id });
    });
    upload.reservation.settled();
  } catch (error) {
    await discardUpload(ctx, upload);
    throw error;
  }
  return presentFile(ctx, row);
}

/** Removes the stored bytes of an upload that will not be recorded. */
export async function discardUpload(ctx: AppContext, upload: ReceivedUpload): Promise<void> {
  await upload.reservation.release();
  await ctx.files.delete(upload.row.storage_key);
  await ctx.files.delete(`derived/${upload.row.id}`);
}

function fileRow(
  id: string,
  user: Pick<UserRow, 'id'> | null,
  now: number,
  detected: Detected,
  size: number,
  fileName: string | undefined,
  extra: Pick<FileRow, 'status' | 'width' | 'height'>,
): FileRow {
  return {
    id,
    uploader_id: user?.id ?? null,
    type: detected.mime,
    kind: detected.kind,
    status: extra.status,
    size,
    name: cleanFileName(fileName, `${detected.kind}.${detected.ext}`),
    storage_key: `${id}.${detected.ext}`,
    ext: detected.ext,
    width: extra.width,
    height: extra.height,
    progress: extra.status === 'raw' ? 0 : null,
    error: null,
    created_at: now,
    updated_at: now,
  };
}

/** Counts an upload against the caller's hourly allowance (docs/api §1.6). */
export async function takeUploadAllowance(ctx: AppContext, user: UserRow): Promise<void> {
  await new Throttle(ctx.limiter, 'uploadsPerUser', user.id).take();
}
