import { IMAGE_SIZES } from '@kith/common';
import { describe, expect, it } from 'vitest';
import { THUMBNAIL_WIDTHS, thumbnailSrcSet, thumbnailWidth } from './thumbnails';

describe('thumbnailWidth', () => {
  it('takes the narrowest of 720, 1366 and 2048 that covers the displayed width times the pixel ratio', () => {
    expect(thumbnailWidth(375, 1)).toBe(720);
    expect(thumbnailWidth(720, 1)).toBe(720);
    expect(thumbnailWidth(375, 2)).toBe(1366);
    expect(thumbnailWidth(375, 3)).toBe(1366);
    expect(thumbnailWidth(1280, 1)).toBe(1366);
    expect(thumbnailWidth(700, 2)).toBe(2048);
  });

  it('takes the widest when none covers it, and ratio 1 for a broken ratio', () => {
    expect(thumbnailWidth(1920, 2)).toBe(2048);
    expect(thumbnailWidth(800, 0)).toBe(1366);
    expect(thumbnailWidth(800, Number.NaN)).toBe(1366);
  });

  it('asks only for widths the server makes', () => {
    for (const width of THUMBNAIL_WIDTHS) expect(IMAGE_SIZES.thumbnail).toContain(`${width}/99999`);
    expect(thumbnailSrcSet('f1')).toBe(
      '/api/images/thumbnail/720/99999/f1 720w, /api/images/thumbnail/1366/99999/f1 1366w, /api/images/thumbnail/2048/99999/f1 2048w',
    );
  });
});
