import path from 'node:path';
import type { AppContext } from '../context.js';
import type { FileRow } from '../db/rows.js';
import { notFound } from '../lib/errors.js';
import { extractFrame } from './ffmpeg.js';
import { renderFirstPage } from './pdf.js';
import { loadSharp } from './sharp.js';
import { fetchToFile, storeFile, withWorkspace } from './workspace.js';

/** Where the still of a video (poster) or the first page of a PDF is kept, for this version of the file. */
export function stillKey(file: Pick<FileRow, 'id' | 'updated_at'>): string {
  return `derived/${file.id}/still-${file.updated_at}.jpg`;
}

/**
 * Makes and stores the still of a video or PDF from its current bytes (docs/api §7.4): the frame at
 * 1 s (or the first frame), or the first page at 100 dpi, as a high-quality JPEG on white.
 * While a video is `raw` this is a frame of the original; the conversion job makes it again from
 * the converted video.
 */
export async function makeStill(
  ctx: Pick<AppContext, 'config' | 'files'>,
  file: Pick<FileRow, 'id' | 'kind' | 'storage_key' | 'ext' | 'updated_at'>,
  signal?: AbortSignal,
): Promise<{ key: string; width: number; height: number }> {
  const key = stillKey(file);
  return withWorkspace(ctx, async (dir) => {
    const input = path.join(dir, `in.${file.ext}`);
    await fetchToFile(ctx, file.storage_key, input);
    let png: string;
    if (file.kind === 'video') {
      png = path.join(dir, 'frame.png');
      await extractFrame(input, png, signal);
    } else {
      png = await renderFirstPage(input, dir, signal);
    }
    const out = path.join(dir, 'still.jpg');
    const sharp = await loadSharp();
    const info = await sharp(png, { limitInputPixels: false })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 92 })
      .toFile(out);
    await storeFile(ctx, out, key);
    return { key, width: info.width, height: info.height };
  });
}

/**
 * The stored picture thumbnails and crops are made from: the image itself, the still of a video
 * or PDF (made once, on first use), none for audio (404). Also a 404 when no picture can be made.
 */
export async function pictureSource(
  ctx: Pick<AppContext, 'config' | 'files' | 'log'>,
  file: FileRow,
): Promise<{ key: string; width: number | null; height: number | null }> {
  if (file.kind === 'image') return { key: file.storage_key, width: file.width, height: file.height };
  if (file.kind === 'audio') throw notFound();
  const key = stillKey(file);
  if ((await ctx.files.stat(key)) === null) {
    try {
      return await makeStill(ctx, file);
    } catch (error) {
      ctx.log.info({ err: error, fileId: file.id }, 'no picture can be made of this file');
      throw notFound();
    }
  }
  const stillMeta = await readMeta(ctx, key);
  return { key, width: stillMeta.width, height: stillMeta.height };
}

async function readMeta(
  ctx: Pick<AppContext, 'files'>,
  key: string,
): Promise<{ width: number | null; height: number | null }> {
  const sharp = await loadSharp();
  try {
    const meta = await ctx.files
      .read(key)
      .pipe(sharp({ limitInputPixels: false }))
      .metadata();
    return { width: meta.width ?? null, height: meta.height ?? null };
  } catch {
    return { width: null, height: null };
  }
}
