import { LIMITS } from '@kith/common';

/**
 * The visible slice of a message's comments (product spec): the last 5 on load, or 5 around the
 * comment named in the URL; "previous" and "next" links reveal 10 more each; posting a comment
 * reveals all of them.
 */

/** Visible comments as indices into the children array; `end` is exclusive. */
export interface CommentWindow {
  start: number;
  end: number;
}

const INITIAL = LIMITS.commentsInitial;
const STEP = LIMITS.commentsStep;

function clampIndex(value: number, count: number): number {
  return Math.min(Math.max(0, value), Math.max(0, count));
}

/** The window on load: the last 5, or 5 centred on `focusIndex` when it names a comment. */
export function initialWindow(count: number, focusIndex?: number): CommentWindow {
  const total = Math.max(0, count);
  const focused = focusIndex !== undefined && Number.isInteger(focusIndex) && focusIndex >= 0 && focusIndex < total;
  if (!focused) return { start: Math.max(0, total - INITIAL), end: total };
  // Slide the window inwards at either end so it still shows 5 when the focus is near an edge.
  const start = Math.max(0, Math.min(focusIndex - Math.floor(INITIAL / 2), total - INITIAL));
  return { start, end: Math.min(total, start + INITIAL) };
}

/** Reveals up to 10 earlier comments. */
export function showPrevious(w: CommentWindow, count: number): CommentWindow {
  return { start: clampIndex(w.start - STEP, count), end: clampIndex(w.end, count) };
}

/** Reveals up to 10 later comments. */
export function showNext(w: CommentWindow, count: number): CommentWindow {
  return { start: clampIndex(w.start, count), end: clampIndex(w.end + STEP, count) };
}

/** Every comment, used once the reader posts one so the new comment is in view with its context. */
export function showAll(count: number): CommentWindow {
  return { start: 0, end: Math.max(0, count) };
}

/** True when earlier comments are hidden. */
export function hasPrevious(w: CommentWindow): boolean {
  return w.start > 0;
}

/** True when later comments are hidden. */
export function hasNext(w: CommentWindow, count: number): boolean {
  return w.end < count;
}

/** How many comments the "previous" link would reveal (at most 10). */
export function previousCount(w: CommentWindow): number {
  return Math.min(STEP, Math.max(0, w.start));
}

/** How many comments the "next" link would reveal (at most 10). */
export function nextCount(w: CommentWindow, count: number): number {
  return Math.min(STEP, Math.max(0, count - w.end));
}
