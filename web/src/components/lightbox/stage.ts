// Measurements of the lightbox's stage (the area that takes gestures) and its image, in the
// coordinates of zoom.ts: sizes in CSS pixels, points from the stage's centre.
import type { Point, Size } from './zoom.ts';

/** The image as fitted at 1× and the stage around it (layout sizes, which transforms leave alone). */
export function stageSizes(stage: HTMLElement | null, image: HTMLElement | null): { content: Size; viewport: Size } {
  return {
    content: { width: image?.offsetWidth ?? 0, height: image?.offsetHeight ?? 0 },
    viewport: { width: stage?.clientWidth ?? 0, height: stage?.clientHeight ?? 0 },
  };
}

/** A stage point from client coordinates, measured from the stage's centre. */
export function stagePoint(stage: HTMLElement | null, clientX: number, clientY: number): Point {
  const rect = stage?.getBoundingClientRect();
  if (!rect) return { x: 0, y: 0 };
  return { x: clientX - rect.left - rect.width / 2, y: clientY - rect.top - rect.height / 2 };
}

/** Keeps a pointer's events on `element` while it is down (where the environment supports it). */
export function capturePointer(element: Element, pointerId: number): void {
  // Not every environment (jsdom, old browsers) has pointer capture; dragging then simply ends at
  // the element's edge.
  if (typeof element.setPointerCapture !== 'function') return;
  try {
    element.setPointerCapture(pointerId);
  } catch {
    // The pointer is already gone.
  }
}

/** Gives a captured pointer back. */
export function releasePointer(element: Element, pointerId: number): void {
  if (typeof element.hasPointerCapture !== 'function' || !element.hasPointerCapture(pointerId)) return;
  element.releasePointerCapture(pointerId);
}
