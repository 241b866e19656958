import { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import type { FilesTable } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { loadSharp } from '../../media/sharp.js';
import { linkFetchLimits, safeFetch } from './fetcher.js';
import { insertPreviewImageFile } from './queries.js';

/**
 * The preview image of a link (docs/api §7.5): fetched under the same rules as the page (http(s)
 * only, checked addresses and redirects, 10 s), at most 10 MiB, image types only, and stored as a
 * JPEG of at most 2048 px without metadata. It becomes a file without uploader that any signed-in
 * user may read (§1.8, rule 4).
 */
export const PREVIEW_IMAGE_MAX_BYTES = 10 * 1024 * 1024;
export const PREVIEW_IMAGE_MAX_SIDE = 2048;
const MAX_PIXELS = 100_000_000;

/** Raster types sharp reads; SVG and other active formats are never fetched. */
const IMAGE_TYPES = new Set([
  'image/jpeg',
  'image/jpg',
  'image/pjpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/heic',
  'image/heif',
  'image/tiff',
]);
const SHARP_FORMATS = new Set(['jpeg', 'png', 'gif', 'webp', 'avif', 'heif', 'tiff']);

/** The JPEG made from fetched bytes: orientation applied, ≤ 2048 px, on white, no metadata. */
export async function previewJpeg(bytes: Buffer): Promise<{ data: Buffer; width: number; height: number } | null> {
  const sharp = await loadSharp();
  const meta = await sharp(bytes, { limitInputPixels: MAX_PIXELS }).metadata();
  if (meta.format === undefined || !SHARP_FORMATS.has(meta.format)) return null;
  const { data, info } = await sharp(bytes, { limitInputPixels: MAX_PIXELS })
    .autoOrient()
    .resize({
      width: PREVIEW_IMAGE_MAX_SIDE,
      height: PREVIEW_IMAGE_MAX_SIDE,
      fit: 'inside',
      withoutEnlargement: true,
    })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 85, progressive: true })
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/**
 * Fetches `imageUrl` and stores it as a file; its id, or null when the image cannot be had (refused
 * address, remote error, too large, not an image). Never throws.
 */
export async function storePreviewImage(ctx: AppContext, imageUrl: string): Promise<string | null> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('timeout')), linkFetchLimits.totalTimeoutMs);
  let key: string | null = null;
  try {
    const answer = await safeFetch(imageUrl, {
      allowLoopback: ctx.config.linkPreviewAllowLoopback,
      signal: controller.signal,
      // One byte over the cap tells a cut body from one that fits exactly.
      bodyLimit: (type) => (IMAGE_TYPES.has(type) ? PREVIEW_IMAGE_MAX_BYTES + 1 : 0),
    });
    if (answer.body === null || answer.truncated || answer.body.length > PREVIEW_IMAGE_MAX_BYTES) return null;
    const jpeg = await previewJpeg(answer.body);
    if (jpeg === null) return null;
    const id = newId();
    key = `${id}.jpg`;
    const { size } = await ctx.files.write(key, Readable.from([jpeg.data]));
    const now = ctx.clock.now();
    const row: FilesTable = {
      id,
      uploader_id: null,
      type: 'image/jpeg',
      kind: 'image',
      status: 'ready',
      size,
      name: 'preview.jpg',
      storage_key: key,
      ext: 'jpg',
      width: jpeg.width,
      height: jpeg.height,
      progress: null,
      error: null,
      created_at: now,
      updated_at: now,
    };
    await insertPreviewImageFile(ctx.db.kysely, row);
    key = null;
    return id;
  } catch (error) {
    ctx.log.debug({ err: error, imageUrl }, 'link preview image not stored');
    return null;
  } finally {
    clearTimeout(timer);
    if (key !== null) await ctx.files.delete(key).catch(() => undefined);
  }
}
