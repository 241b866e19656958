// Pure geometry for the image lightbox: zoom limits, keeping a zoomed image in view, and telling
// swipes and double taps apart from other pointer movements. No DOM here, so all of it is unit-tested.
//
// Coordinates: the image is laid out centred in a viewport and drawn with
// `translate(x, y) scale(scale)` around its own centre. Points are measured from the viewport's
// centre, in CSS pixels.

export const MIN_SCALE = 1;
export const MAX_SCALE = 5;
/** Factor of one press of a zoom button or key. */
export const ZOOM_STEP = 1.5;
/** Scale a double click or double tap zooms to. */
export const DOUBLE_TAP_SCALE = 2.5;

export const SWIPE_MIN_DISTANCE = 50;
export const SWIPE_MAX_DURATION = 600;
export const SWIPE_CLOSE_DISTANCE = 100;
/** A horizontal swipe must travel at least this many times further sideways than up or down. */
export const SWIPE_DIRECTION_RATIO = 1.5;

export const DOUBLE_TAP_MAX_DELAY = 300;
export const DOUBLE_TAP_MAX_DISTANCE = 30;

export interface Point {
  x: number;
  y: number;
}

export interface Size {
  width: number;
  height: number;
}

export interface View {
  scale: number;
  x: number;
  y: number;
}

export const IDENTITY_VIEW: View = Object.freeze({ scale: 1, x: 0, y: 0 });

/** Turns -0 into 0 so results compare and print cleanly. */
function noNegativeZero(value: number): number {
  return value === 0 ? 0 : value;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

export function clampScale(scale: number): number {
  if (!Number.isFinite(scale)) return scale === Infinity ? MAX_SCALE : MIN_SCALE;
  return clamp(scale, MIN_SCALE, MAX_SCALE);
}

/** Whether a scale counts as zoomed in (tolerates rounding from repeated multiplication). */
export function isZoomed(scale: number): boolean {
  return scale > MIN_SCALE + 1e-3;
}

/**
 * Limits a pan offset so the scaled image cannot be dragged out of view: along each axis where the
 * scaled image is larger than the viewport its edges may not move inside the viewport, and along an
 * axis where it fits it stays centred.
 */
export function clampPan(pan: Point, scale: number, content: Size, viewport: Size): Point {
  const maxX = Math.max(0, (content.width * scale - viewport.width) / 2);
  const maxY = Math.max(0, (content.height * scale - viewport.height) / 2);
  return {
    x: noNegativeZero(clamp(Number.isFinite(pan.x) ? pan.x : 0, -maxX, maxX)),
    y: noNegativeZero(clamp(Number.isFinite(pan.y) ? pan.y : 0, -maxY, maxY)),
  };
}

/** Clamps both the scale and the pan offset of a view. */
export function clampView(view: View, content: Size, viewport: Size): View {
  const scale = clampScale(view.scale);
  return { scale, ...clampPan(view, scale, content, viewport) };
}

/**
 * Changes the scale so the image point under `focus` stays under it (zooming "around the
 * pointer"), then clamps the result.
 */
export function zoomAt(view: View, scale: number, focus: Point, content: Size, viewport: Size): View {
  const next = clampScale(scale);
  const ratio = next / view.scale;
  return clampView(
    { scale: next, x: focus.x - (focus.x - view.x) * ratio, y: focus.y - (focus.y - view.y) * ratio },
    content,
    viewport,
  );
}

/** Scale factor for one wheel event: up zooms in, down zooms out, big jumps are tamed. */
export function wheelZoomFactor(deltaY: number, deltaMode = 0): number {
  // deltaMode 1 is lines and 2 is pages; bring both to rough pixels.
  const pixels = deltaY * (deltaMode === 1 ? 16 : deltaMode === 2 ? 400 : 1);
  return Math.exp(-clamp(pixels, -100, 100) * 0.002);
}

export type SwipeDirection = 'left' | 'right' | 'down';

/**
 * Classifies a finished one-finger movement. `left` means the finger moved to the left (show the
 * next image), `right` the previous one, `down` closes. Horizontal swipes must be quick and mostly
 * sideways; a downward swipe only has to be long enough and mostly downwards (it works as a slow
 * drag to dismiss, too).
 */
export function detectSwipe(start: Point, end: Point, durationMs: number): SwipeDirection | null {
  const dx = end.x - start.x;
  const dy = end.y - start.y;
  if (
    durationMs < SWIPE_MAX_DURATION &&
    Math.abs(dx) >= SWIPE_MIN_DISTANCE &&
    Math.abs(dx) >= Math.abs(dy) * SWIPE_DIRECTION_RATIO
  ) {
    return dx < 0 ? 'left' : 'right';
  }
  if (dy >= SWIPE_CLOSE_DISTANCE && dy > Math.abs(dx)) return 'down';
  return null;
}

export interface Tap extends Point {
  time: number;
}

/** Whether `tap` completes a double tap begun by `previous`. */
export function isDoubleTap(previous: Tap | null, tap: Tap): boolean {
  if (!previous) return false;
  const delay = tap.time - previous.time;
  return (
    delay >= 0 &&
    delay <= DOUBLE_TAP_MAX_DELAY &&
    Math.hypot(tap.x - previous.x, tap.y - previous.y) <= DOUBLE_TAP_MAX_DISTANCE
  );
}

/** Distance between two points and the point halfway, for pinch gestures. */
export function pinchGeometry(a: Point, b: Point): { distance: number; center: Point } {
  return { distance: Math.hypot(b.x - a.x, b.y - a.y), center: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 } };
}

/**
 * The view during a pinch: the image point that was under the fingers' midpoint when the pinch
 * began follows the midpoint, scaled by how far the fingers have spread.
 */
export function pinchView(
  startView: View,
  startCenter: Point,
  startDistance: number,
  center: Point,
  distance: number,
  content: Size,
  viewport: Size,
): View {
  const scale = startDistance > 0 ? startView.scale * (distance / startDistance) : startView.scale;
  const moved = {
    scale: startView.scale,
    x: startView.x + center.x - startCenter.x,
    y: startView.y + center.y - startCenter.y,
  };
  return zoomAt(moved, scale, center, content, viewport);
}
