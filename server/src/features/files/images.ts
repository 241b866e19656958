import { pipeline, Readable } from 'node:stream';
import { IMAGE_SIZES } from '@kith/common';
import type { AppContext } from '../../context.js';
import { ApiError, invalidField, notFound } from '../../lib/errors.js';
import { sha256 } from '../../lib/secrets.js';
import { pictureSource } from '../../media/pictures.js';
import { loadSharp } from '../../media/sharp.js';
import type { FileRow } from '../../db/rows.js';

export type ImageType = 'thumbnail' | 'crop';
export type ImageFormat = 'jpeg' | 'webp';

/**
 * How many times its shorter side a picture's longer side may be (docs/decisions.md): past 1:50, a
 * picture shown 720 px wide is under 15 px high, or over 36,000 px long. Uploads beyond it are
 * refused, and no thumbnail or crop is made of such files stored before the rule.
 */
export const MAX_IMAGE_RATIO = 50;

/**
 * The largest side each output format can hold: libjpeg stops at 65,500 px (JPEG_MAX_DIMENSION),
 * WebP stores sides in 14 bits.
 */
export const MAX_OUTPUT_SIDE: Readonly<Record<ImageFormat, number>> = { jpeg: 65_500, webp: 16_383 };

/** How long a picture that could not be made is not tried again (a cause outside the file heals). */
export const NO_PICTURE_RETRY_MS = 60 * 60 * 1000;

/** The requested picture, checked against the allowed sizes (docs/api §7.4). */
export interface ImageRequest {
  type: ImageType;
  width: number;
  height: number;
}

/** The picture a path asks for: 400 for a type or size that is not offered. */
export function parseImageRequest(type: string, w: string, h: string): ImageRequest {
  if (type !== 'thumbnail' && type !== 'crop') throw invalidField('type', 'The image type must be thumbnail or crop');
  const allowed: readonly string[] = IMAGE_SIZES[type];
  if (!allowed.includes(`${w}/${h}`)) {
    throw new ApiError(400, 'unsupported_image_size', `This ${type} size is not offered`);
  }
  return { type, width: Number(w), height: Number(h) };
}

/** Where a made picture is kept: under the file's own folder of derived pictures. */
export function derivedKey(file: FileRow, image: ImageRequest, format: ImageFormat): string {
  return `derived/${file.id}/${image.type}-${image.width}x${image.height}-${file.updated_at}.${format === 'webp' ? 'webp' : 'jpg'}`;
}

/** A strong validator for a made picture: the file, its version, the box and the format. */
export function imageEtag(file: FileRow, image: ImageRequest, format: ImageFormat): string {
  return `"${sha256(`${file.id}|${file.updated_at}|${image.type}|${image.width}x${image.height}|${format}`).slice(0, 32)}"`;
}

/**
 * Whether a picture of these sides can be shown: both at least 1 px, the longer at most
 * MAX_IMAGE_RATIO times the shorter, give or take `roundingPx` on the shorter side.
 */
export function isShowable(width: number, height: number, roundingPx = 0): boolean {
  const short = Math.min(width, height);
  return short >= 1 && Math.max(width, height) <= (short + roundingPx) * MAX_IMAGE_RATIO;
}

/**
 * The box a picture is fitted into, clamped to what `format` can hold: each side of a thumbnail
 * (99999 means "no limit"), both sides of a crop in proportion, so the crop keeps its ratio.
 */
export function outputBox(image: ImageRequest, format: ImageFormat): { width: number; height: number } {
  const max = MAX_OUTPUT_SIDE[format];
  if (image.type === 'thumbnail') return { width: Math.min(image.width, max), height: Math.min(image.height, max) };
  const scale = Math.min(1, max / image.width, max / image.height);
  return { width: Math.max(1, Math.floor(image.width * scale)), height: Math.max(1, Math.floor(image.height * scale)) };
}

/**
 * Where the failure to make any picture of this version of the file is remembered; it holds the
 * time (ms) until which no new attempt is made. Under the file's derived folder, so it goes with
 * the file, and a new version (a converted video) starts afresh.
 */
export function noPictureKey(file: Pick<FileRow, 'id' | 'updated_at'>): string {
  return `derived/${file.id}/no-picture-${file.updated_at}`;
}

/** A source that decodes but is outside what the product shows (MAX_IMAGE_RATIO). */
class UnshowableSource extends Error {
  override readonly name = 'UnshowableSource';
}

/**
 * Makes the picture once and stores it (docs/api §7.4): `thumbnail` fits inside the box, `crop`
 * covers it from the centre; neither enlarges (a small source gives a smaller crop of the same
 * ratio). JPEG q85 progressive or WebP, transparency on white, no metadata, no side longer than
 * the format holds. Sources: images; the still of a video (frame at 1 s, or the first) or of a PDF
 * (first page), made once from the current bytes (the original while a video is `raw`); audio has
 * none (404). When no picture can be made (an unreadable or unshowable source), the answer is 404
 * and the failure is remembered for NO_PICTURE_RETRY_MS, so views do not run sharp or the tools
 * again and again.
 */
export async function ensureImage(
  ctx: AppContext,
  file: FileRow,
  image: ImageRequest,
  format: ImageFormat,
): Promise<{ key: string; size: number }> {
  if (file.kind === 'audio') throw notFound();
  const key = derivedKey(file, image, format);
  const existing = await ctx.files.stat(key);
  if (existing !== null) return { key, size: existing.size };
  if (await failedRecently(ctx, file)) throw notFound();
  try {
    const { size } = await ctx.files.write(key, await makePicture(ctx, file, image, format));
    return { key, size };
  } catch (error) {
    // A failing disk (ENOSPC, EIO) is the server's trouble, not the file's: not remembered.
    if (isSystemError(error)) throw error;
    // pictureSource has already said why it found no still.
    if (!(error instanceof ApiError))
      ctx.log.info({ err: error, fileId: file.id }, 'no picture can be made of this file');
    await rememberFailure(ctx, file);
    throw notFound();
  }
}

/** The stream of the made picture: the source read through sharp, resized, flattened and encoded. */
async function makePicture(
  ctx: AppContext,
  file: FileRow,
  image: ImageRequest,
  format: ImageFormat,
): Promise<Readable> {
  const source = await pictureSource(ctx, file);
  // Bytes gone from the store are the file's loss, remembered like any other (a missing key
  // would otherwise fail as an error of the system).
  if ((await ctx.files.stat(source.key)) === null) throw new Error('The stored bytes of the picture are missing');
  const sides =
    source.width !== null && source.height !== null
      ? { width: source.width, height: source.height }
      : await measure(ctx, source.key);
  // One pixel: the cleaning of an upload rounds the shorter side of an image it scales down.
  if (!isShowable(sides.width, sides.height, 1)) {
    throw new UnshowableSource(`The picture is ${sides.width}×${sides.height}, beyond 1:${MAX_IMAGE_RATIO}`);
  }
  const { width: w, height: h } = sides;
  const box = outputBox(image, format);

  const sharp = await loadSharp();
  let picture = sharp({ limitInputPixels: false }).autoOrient();
  if (image.type === 'thumbnail') {
    picture = picture.resize({ width: box.width, height: box.height, fit: 'inside', withoutEnlargement: true });
  } else if (Math.max(box.width / w, box.height / h) > 1) {
    // Covering the box would enlarge: cut the largest centred region of the box's ratio instead.
    const cw = Math.min(w, Math.round((h * box.width) / box.height));
    const ch = Math.min(h, Math.round((cw * box.height) / box.width));
    picture = picture.extract({
      left: Math.floor((w - cw) / 2),
      top: Math.floor((h - ch) / 2),
      width: Math.max(1, cw),
      height: Math.max(1, ch),
    });
  } else {
    picture = picture.resize({ width: box.width, height: box.height, fit: 'cover', position: 'centre' });
  }
  picture = picture.flatten({ background: '#ffffff' });
  picture = format === 'webp' ? picture.webp({ quality: 85 }) : picture.jpeg({ quality: 85, progressive: true });
  // sharp reports a failure of the source on its own output, which the store's write sees.
  return pipeline(ctx.files.read(source.key), picture, () => undefined);
}

/** The sides of a stored picture whose row does not carry them. */
async function measure(ctx: AppContext, key: string): Promise<{ width: number; height: number }> {
  const sharp = await loadSharp();
  const meta = await ctx.files
    .read(key)
    .pipe(sharp({ limitInputPixels: false }))
    .metadata();
  const swap = (meta.orientation ?? 1) >= 5;
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  return swap ? { width: height, height: width } : { width, height };
}

async function failedRecently(ctx: AppContext, file: FileRow): Promise<boolean> {
  const key = noPictureKey(file);
  if ((await ctx.files.stat(key)) === null) return false;
  let text = '';
  try {
    for await (const chunk of ctx.files.read(key)) text += String(chunk);
  } catch {
    return false;
  }
  return ctx.clock.now() < Number(text);
}

async function rememberFailure(ctx: AppContext, file: FileRow): Promise<void> {
  try {
    await ctx.files.write(noPictureKey(file), Readable.from([String(ctx.clock.now() + NO_PICTURE_RETRY_MS)]));
  } catch (error) {
    // Not remembering only costs another attempt on the next view.
    ctx.log.warn({ err: error, fileId: file.id }, 'could not remember that no picture can be made');
  }
}

/**
 * An error of the storage, not of the bytes: of the operating system (it carries `syscall`, like
 * ENOSPC or EACCES), or an answer of the S3 store (the AWS SDK's errors carry `$metadata`).
 */
function isSystemError(error: unknown): boolean {
  const fields = error as { syscall?: unknown; $metadata?: unknown } | null;
  return typeof fields?.syscall === 'string' || (typeof fields?.$metadata === 'object' && fields.$metadata !== null);
}
