import { imageUrl } from '../../lib/api';

/** The widths the server makes thumbnails of (product spec §9), narrowest first. */
export const THUMBNAIL_WIDTHS = [720, 1366, 2048] as const;

/**
 * The narrowest thumbnail that covers `cssWidth` CSS pixels on a screen of `pixelRatio` device
 * pixels per CSS pixel, else the widest: sharp on a phone's dense screen, light on a plain one.
 */
export function thumbnailWidth(cssWidth: number, pixelRatio: number): number {
  const ratio = Number.isFinite(pixelRatio) && pixelRatio > 0 ? pixelRatio : 1;
  const needed = cssWidth * ratio;
  return THUMBNAIL_WIDTHS.find((width) => width >= needed) ?? 2048;
}

/** The URL of a file's thumbnail `width` pixels wide at most (height unbounded). */
export function thumbnailUrl(fileId: string, width: number): string {
  return imageUrl('thumbnail', `${width}/99999`, fileId);
}

/** A `srcset` of every thumbnail width, for the browser to choose by displayed width and density. */
export function thumbnailSrcSet(fileId: string): string {
  return THUMBNAIL_WIDTHS.map((width) => `${thumbnailUrl(fileId, width)} ${width}w`).join(', ');
}
