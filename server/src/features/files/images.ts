import { pipeline } from 'node:stream';
import { IMAGE_SIZES } from '@kith/common';
import type { AppContext } from '../../context.js';
import { ApiError, invalidField, notFound } from '../../lib/errors.js';
import { sha256 } from '../../lib/secrets.js';
import { pictureSource } from '../../media/pictures.js';
import { loadSharp } from '../../media/sharp.js';
import type { FileRow } from './queries.js';

export type ImageType = 'thumbnail' | 'crop';
export type ImageFormat = 'jpeg' | 'webp';

/** The requested picture, checked against the allowed sizes (contract §7.4). */
export interface ImageRequest {
  type: ImageType;
  width: number;
  height: number;
}

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
 * Makes the picture once and stores it (contract §7.4): `thumbnail` fits inside the box, `crop`
 * covers it from the centre; neither enlarges (a small source gives a smaller crop of the same
 * ratio). JPEG q85 progressive or WebP, transparency on white, no metadata.
 * Sources: images; the still of a video (frame at 1 s, or the first) or of a PDF (first page), made
 * once from the current bytes (the original while a video is `raw`); audio has none (404).
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
  const source = await pictureSource(ctx, file);

  const sharp = await loadSharp();
  let picture = sharp({ limitInputPixels: false }).autoOrient();
  if (image.type === 'thumbnail') {
    picture = picture.resize({ width: image.width, height: image.height, fit: 'inside', withoutEnlargement: true });
  } else {
    const w = source.width;
    const h = source.height;
    if (w !== null && h !== null && Math.max(image.width / w, image.height / h) > 1) {
      // Covering the box would enlarge: cut the largest centred region of the box's ratio instead.
      const cw = Math.min(w, Math.round((h * image.width) / image.height));
      const ch = Math.min(h, Math.round((cw * image.height) / image.width));
      picture = picture.extract({
        left: Math.floor((w - cw) / 2),
        top: Math.floor((h - ch) / 2),
        width: Math.max(1, cw),
        height: Math.max(1, ch),
      });
    } else {
      picture = picture.resize({ width: image.width, height: image.height, fit: 'cover', position: 'centre' });
    }
  }
  picture = picture.flatten({ background: '#ffffff' });
  picture = format === 'webp' ? picture.webp({ quality: 85 }) : picture.jpeg({ quality: 85, progressive: true });
  const output = pipeline(ctx.files.read(source.key), picture, () => undefined);
  const { size } = await ctx.files.write(key, output);
  return { key, size };
}
