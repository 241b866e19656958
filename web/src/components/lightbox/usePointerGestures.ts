import { useEffect, useRef } from 'react';
import type { MouseEvent as ReactMouseEvent, PointerEvent as ReactPointerEvent, RefObject } from 'react';
import { capturePointer, releasePointer } from './stage.ts';
import { usePressIntent } from './usePressIntent.ts';
import { useStateResetOn } from '../../hooks/useStateResetOn';
import type { Zoom } from './useZoom.ts';
import { clampView, detectSwipe, isDoubleTap, isZoomed, pinchGeometry, pinchView } from './zoom.ts';
import type { Point, Tap, View } from './zoom.ts';

/** How far a pointer may wander and still count as a tap or click rather than a drag. */
const TAP_SLOP = 8;

type Gesture =
  | { kind: 'none' }
  | { kind: 'swipe'; pointerId: number; start: Point; startTime: number }
  | { kind: 'pan'; pointerId: number; start: Point; startView: View }
  | { kind: 'pinch'; startView: View; startCenter: Point; startDistance: number };

const NO_GESTURE: Gesture = { kind: 'none' };
const NO_DRAG: Point = { x: 0, y: 0 };

/** Where the lightbox's pointer gestures lead. */
export interface GestureOptions {
  /** The image shown: a new one starts a new gesture. */
  index: number;
  zoom: Zoom;
  imageRef: RefObject<HTMLElement | null>;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  onClose: () => void;
}

/** The gestures' state for drawing, and the handlers that feed them. */
export interface PointerGestures {
  /** How far an unzoomed image follows the finger during a swipe. */
  drag: Point;
  /** Whether a pointer is down (transitions wait until it lifts). */
  gesturing: boolean;
  stageHandlers: {
    onPointerDown: (event: ReactPointerEvent<HTMLElement>) => void;
    onPointerMove: (event: ReactPointerEvent<HTMLElement>) => void;
    onPointerUp: (event: ReactPointerEvent<HTMLElement>) => void;
    onPointerCancel: (event: ReactPointerEvent<HTMLElement>) => void;
    onLostPointerCapture: (event: ReactPointerEvent<HTMLElement>) => void;
    onDoubleClick: (event: ReactMouseEvent<HTMLElement>) => void;
  };
  dialogHandlers: {
    onPointerDownCapture: (event: ReactPointerEvent<HTMLElement>) => void;
    onClick: (event: ReactMouseEvent<HTMLElement>) => void;
  };
}

/**
 * Pointer gestures on the lightbox's stage: one finger (or the mouse) pans a zoomed image or swipes
 * an unzoomed one (left: next, right: previous, down: close), two fingers pinch to zoom, a double
 * tap or double click toggles zoom, a click on the backdrop closes.
 */
export function usePointerGestures(options: GestureOptions): PointerGestures {
  const { index, zoom, hasPrevious, hasNext } = options;
  const [drag, setDrag] = useStateResetOn<number, Point>(index, () => NO_DRAG);
  const [gesturing, setGesturing] = useStateResetOn(index, () => false);
  const pointers = useRef(new Map<number, Point>());
  const gesture = useRef<Gesture>(NO_GESTURE);
  const lastTap = useRef<Tap | null>(null);
  const press = usePressIntent(options.imageRef, options.onClose, (x, y) => zoom.toggle(zoom.toStage(x, y)));

  // A new image starts a new gesture: the fingers still down belong to the previous one.
  useEffect(() => {
    pointers.current.clear();
    gesture.current = NO_GESTURE;
    lastTap.current = null;
  }, [index]);

  const pinchNow = () => {
    const [a, b] = [...pointers.current.values()];
    if (!a || !b) return null;
    return pinchGeometry(zoom.toStage(a.x, a.y), zoom.toStage(b.x, b.y));
  };

  const startPinch = () => {
    const pinch = pinchNow();
    if (!pinch) return;
    gesture.current = {
      kind: 'pinch',
      startView: zoom.current(),
      startCenter: pinch.center,
      startDistance: pinch.distance,
    };
    press.markMoved();
    setDrag(NO_DRAG);
  };

  const onPointerDown = (event: ReactPointerEvent<HTMLElement>) => {
    if (event.pointerType === 'mouse' && event.button !== 0) return;
    const point = { x: event.clientX, y: event.clientY };
    pointers.current.set(event.pointerId, point);
    const count = pointers.current.size;
    press.pointerDown(event.pointerType, count === 1);
    capturePointer(event.currentTarget, event.pointerId);
    setGesturing(true);
    if (count === 1) {
      const view = zoom.current();
      gesture.current = isZoomed(view.scale)
        ? { kind: 'pan', pointerId: event.pointerId, start: point, startView: view }
        : { kind: 'swipe', pointerId: event.pointerId, start: point, startTime: performance.now() };
    } else if (count === 2) {
      startPinch();
    }
  };

  const onPointerMove = (event: ReactPointerEvent<HTMLElement>) => {
    if (!pointers.current.has(event.pointerId)) return;
    const point = { x: event.clientX, y: event.clientY };
    pointers.current.set(event.pointerId, point);
    const g = gesture.current;
    if (g.kind === 'pinch') {
      const pinch = pinchNow();
      if (!pinch) return;
      const { content, viewport } = zoom.measure();
      zoom.commit(
        pinchView(g.startView, g.startCenter, g.startDistance, pinch.center, pinch.distance, content, viewport),
      );
      return;
    }
    if (g.kind === 'none' || g.pointerId !== event.pointerId) return;
    const dx = point.x - g.start.x;
    const dy = point.y - g.start.y;
    if (!press.hasMoved() && Math.hypot(dx, dy) > TAP_SLOP) press.markMoved();
    if (!press.hasMoved()) return;
    if (g.kind === 'pan') {
      const { content, viewport } = zoom.measure();
      zoom.commit(
        clampView({ scale: g.startView.scale, x: g.startView.x + dx, y: g.startView.y + dy }, content, viewport),
      );
    } else {
      // Resist where there is nothing to go to.
      const blocked = (dx > 0 && !hasPrevious) || (dx < 0 && !hasNext);
      setDrag({ x: blocked ? dx / 4 : dx, y: Math.max(0, dy) });
    }
  };

  const endPointer = (event: ReactPointerEvent<HTMLElement>, cancelled: boolean) => {
    if (!pointers.current.has(event.pointerId)) return;
    const end = { x: event.clientX, y: event.clientY };
    const now = performance.now();
    pointers.current.delete(event.pointerId);
    releasePointer(event.currentTarget, event.pointerId);
    const remaining = pointers.current.size;
    if (remaining === 0) setGesturing(false);

    const g = gesture.current;
    if (g.kind === 'pinch') {
      press.dragEnded();
      const [rest] = [...pointers.current.entries()];
      const view = zoom.current();
      if (remaining >= 2) startPinch();
      else if (rest && isZoomed(view.scale)) {
        // Carry on panning with the finger left on the screen; never turn a pinch into a swipe.
        gesture.current = { kind: 'pan', pointerId: rest[0], start: rest[1], startView: view };
      } else gesture.current = NO_GESTURE;
      return;
    }
    if (g.kind === 'none' || g.pointerId !== event.pointerId) return;
    gesture.current = NO_GESTURE;
    setDrag(NO_DRAG);
    if (cancelled) return;
    if (Math.hypot(end.x - g.start.x, end.y - g.start.y) > TAP_SLOP) press.markMoved();

    if (press.hasMoved()) {
      press.dragEnded();
      if (g.kind !== 'swipe') return;
      const direction = detectSwipe(g.start, end, now - g.startTime);
      if (direction === 'left') options.onNext();
      else if (direction === 'right') options.onPrevious();
      else if (direction === 'down') options.onClose();
      return;
    }
    // Mice get the browser's double click; fingers and pens are timed here.
    if (event.pointerType === 'touch' || event.pointerType === 'pen') {
      const tap = { ...end, time: now };
      if (isDoubleTap(lastTap.current, tap)) {
        lastTap.current = null;
        zoom.toggle(zoom.toStage(end.x, end.y));
      } else lastTap.current = tap;
    }
  };

  return {
    drag,
    gesturing,
    stageHandlers: {
      onPointerDown,
      onPointerMove,
      onPointerUp: (event) => endPointer(event, false),
      onPointerCancel: (event) => endPointer(event, true),
      onLostPointerCapture: (event) => endPointer(event, true),
      onDoubleClick: press.onDoubleClick,
    },
    dialogHandlers: { onPointerDownCapture: press.onPointerDownCapture, onClick: press.onClick },
  };
}
