import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { RefObject } from 'react';
import { stagePoint, stageSizes } from './stage.ts';
import { DOUBLE_TAP_SCALE, IDENTITY_VIEW, isZoomed, wheelZoomFactor, zoomAt } from './zoom.ts';
import type { Point, Size, View } from './zoom.ts';

/** The zoom and pan of the image shown, and the ways to change them. */
export interface Zoom {
  /** The view to draw. */
  view: View;
  /** The latest view, also between a change and its render: what gesture handlers start from. */
  current: () => View;
  /** Shows `view` (already clamped). */
  commit: (view: View) => void;
  /** Zooms to `scale` around `focus` (a stage point; the centre by default). */
  zoomTo: (scale: number, focus?: Point) => void;
  /** Multiplies the scale, around the centre. */
  zoomBy: (factor: number) => void;
  reset: () => void;
  /** Zooms in to the double-tap scale around `focus`, or back out when zoomed. */
  toggle: (focus: Point) => void;
  /** The image's and the stage's sizes now. */
  measure: () => { content: Size; viewport: Size };
  /** A stage point from client coordinates. */
  toStage: (clientX: number, clientY: number) => Point;
}

/**
 * Zoom and pan of the image at `index` (a new index starts unzoomed), with wheel zoom on the stage.
 * The refs are the stage (the area taking gestures) and the image in it.
 */
export function useZoom(
  index: number,
  stageRef: RefObject<HTMLElement | null>,
  imageRef: RefObject<HTMLElement | null>,
): Zoom {
  // Zoom and pan belong to one image: remembering which one makes a new index start unzoomed.
  const [zoom, setZoom] = useState<{ index: number; view: View }>({ index, view: IDENTITY_VIEW });
  const view = zoom.index === index ? zoom.view : IDENTITY_VIEW;
  const viewRef = useRef<View>(view);

  useLayoutEffect(() => {
    viewRef.current = view;
  }, [view]);

  const current = useCallback(() => viewRef.current, []);

  const commit = useCallback(
    (next: View) => {
      viewRef.current = next;
      setZoom({ index, view: next });
    },
    [index],
  );

  const measure = useCallback(() => stageSizes(stageRef.current, imageRef.current), [stageRef, imageRef]);
  const toStage = useCallback(
    (clientX: number, clientY: number) => stagePoint(stageRef.current, clientX, clientY),
    [stageRef],
  );

  const zoomTo = useCallback(
    (scale: number, focus: Point = { x: 0, y: 0 }) => {
      const { content, viewport } = measure();
      commit(zoomAt(viewRef.current, scale, focus, content, viewport));
    },
    [commit, measure],
  );

  const zoomBy = useCallback((factor: number) => zoomTo(viewRef.current.scale * factor), [zoomTo]);
  const reset = useCallback(() => commit(IDENTITY_VIEW), [commit]);

  const toggle = useCallback(
    (focus: Point) => {
      if (isZoomed(viewRef.current.scale)) reset();
      else zoomTo(DOUBLE_TAP_SCALE, focus);
    },
    [reset, zoomTo],
  );

  // Wheel zoom needs a non-passive listener to keep the page (and browser zoom) still.
  useEffect(() => {
    const stage = stageRef.current;
    if (!stage) return;
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      if (event.deltaY === 0) return;
      zoomTo(
        viewRef.current.scale * wheelZoomFactor(event.deltaY, event.deltaMode),
        toStage(event.clientX, event.clientY),
      );
    };
    stage.addEventListener('wheel', onWheel, { passive: false });
    return () => stage.removeEventListener('wheel', onWheel);
  }, [stageRef, zoomTo, toStage]);

  return { view, current, commit, zoomTo, zoomBy, reset, toggle, measure, toStage };
}
