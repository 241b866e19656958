/**
 * Group feed paging rules (product spec): the first screen shows roughly one card per 68800 px²
 * of viewport, scrolling near the bottom reveals FEED_STEP more, and pages are fetched ahead so
 * the revealed cards are already loaded.
 */

/** Cards revealed each time the reader scrolls near the bottom. */
export const FEED_STEP = 10;

/** Screen area (px²) that one feed card is assumed to cover when sizing the first screen. */
const AREA_PER_CARD = 68800;

/** How many cards to show first: 1 plus the screen area divided by 68800, at least 1. */
export function initialVisibleCount(width: number, height: number): number {
  const area = width * height;
  // A hidden window or a broken measurement must still show the first card.
  if (!Number.isFinite(area) || width <= 0 || height <= 0) return 1;
  return 1 + Math.floor(area / AREA_PER_CARD);
}

/** Scroll position of the feed container, in pixels. */
export interface ScrollMetrics {
  scrollTop: number;
  viewportHeight: number;
  contentHeight: number;
}

/** True when the bottom of the viewport is within `marginPx` of the end of the content. */
export function isNearBottom(m: ScrollMetrics, marginPx = 600): boolean {
  return m.scrollTop + m.viewportHeight >= m.contentHeight - marginPx;
}

/** True when another page should be fetched so the next reveal of FEED_STEP cards is covered. */
export function shouldFetchMore(visible: number, loaded: number, hasMore: boolean): boolean {
  return hasMore && loaded - visible < FEED_STEP;
}
