import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { MediaError, run } from './ffmpeg.js';

/**
 * Renders the first page of a PDF as PNG at 100 dpi with poppler's `pdftoppm` into `dir`, and
 * returns the image's path. A MediaError when the PDF cannot be rendered (or takes over 30 s).
 */
export async function renderFirstPage(input: string, dir: string, signal?: AbortSignal): Promise<string> {
  const prefix = path.join(dir, 'page');
  try {
    await run('pdftoppm', ['-f', '1', '-l', '1', '-png', '-r', '100', '-singlefile', input, prefix], {
      ...(signal === undefined ? {} : { signal }),
      timeoutMs: 30_000,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new MediaError('No preview can be made of this PDF', (error as Error).message, true);
  }
  const made = (await readdir(dir)).find((name) => name.startsWith('page') && name.endsWith('.png'));
  if (made === undefined) throw new MediaError('No preview can be made of this PDF', 'no page rendered', true);
  return path.join(dir, made);
}
