import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type {
  JSX,
  KeyboardEvent as ReactKeyboardEvent,
  MouseEvent as ReactMouseEvent,
  PointerEvent as ReactPointerEvent,
} from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from '../../lib/i18n';
import {
  DOUBLE_TAP_SCALE,
  IDENTITY_VIEW,
  MAX_SCALE,
  ZOOM_STEP,
  clampView,
  detectSwipe,
  isDoubleTap,
  isZoomed,
  pinchGeometry,
  pinchView,
  wheelZoomFactor,
  zoomAt,
} from './zoom.ts';
import type { Point, Size, Tap, View } from './zoom.ts';
import styles from './Lightbox.module.css';

export interface LightboxImage {
  src: string;
  alt: string;
}

export interface LightboxProps {
  images: LightboxImage[];
  index: number;
  onIndexChange(index: number): void;
  onClose(): void;
}

/** How far a pointer may wander and still count as a tap or click rather than a drag. */
const TAP_SLOP = 8;

type Gesture =
  | { kind: 'none' }
  | { kind: 'swipe'; pointerId: number; start: Point; startTime: number }
  | { kind: 'pan'; pointerId: number; start: Point; startView: View }
  | { kind: 'pinch'; startView: View; startCenter: Point; startDistance: number };

const NO_GESTURE: Gesture = { kind: 'none' };
const NO_DRAG: Point = { x: 0, y: 0 };

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), [tabindex]:not([tabindex="-1"])';

function Icon({ path }: { path: string }): JSX.Element {
  return (
    <svg
      className={styles.icon}
      viewBox="0 0 24 24"
      width="24"
      height="24"
      aria-hidden="true"
      focusable="false"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={path} />
    </svg>
  );
}

const ICONS = {
  close: 'M6 6l12 12M18 6L6 18',
  previous: 'M15 5l-7 7 7 7',
  next: 'M9 5l7 7-7 7',
  zoomIn: 'M10.5 4a6.5 6.5 0 1 1 0 13 6.5 6.5 0 0 1 0-13zM15.5 15.5L20 20M10.5 8v5M8 10.5h5',
  zoomOut: 'M10.5 4a6.5 6.5 0 1 1 0 13 6.5 6.5 0 0 1 0-13zM15.5 15.5L20 20M8 10.5h5',
};

function capturePointer(element: Element, pointerId: number): void {
  // Not every environment (jsdom, old browsers) has pointer capture; dragging then simply ends at
  // the element's edge.
  if (typeof element.setPointerCapture !== 'function') return;
  try {
    element.setPointerCapture(pointerId);
  } catch {
    // The pointer is already gone.
  }
}

function releasePointer(element: Element, pointerId: number): void {
  if (typeof element.hasPointerCapture !== 'function' || !element.hasPointerCapture(pointerId)) return;
  element.releasePointerCapture(pointerId);
}

/**
 * A full-screen image viewer: zoom (wheel, double click or tap, pinch, buttons, keys), drag to pan
 * when zoomed, swipe or arrow keys to move between images, swipe down, Escape or a click on the
 * backdrop to close. The parent owns which image is shown.
 */
export function Lightbox(props: LightboxProps): JSX.Element {
  const { images, index } = props;
  const { t } = useTranslation();
  const dialogRef = useRef<HTMLDivElement>(null);
  const stageRef = useRef<HTMLDivElement>(null);
  const imgRef = useRef<HTMLImageElement>(null);

  // Zoom and pan belong to one image: remembering which one makes a new index start unzoomed.
  const [zoom, setZoom] = useState<{ index: number; view: View }>({ index, view: IDENTITY_VIEW });
  const view = zoom.index === index ? zoom.view : IDENTITY_VIEW;
  // The latest view, also between a state update and its render, for gesture handlers.
  const viewRef = useRef<View>(view);
  // How far an unzoomed image follows the finger during a swipe.
  const [drag, setDrag] = useState<Point>(NO_DRAG);
  const [gesturing, setGesturing] = useState(false);

  const pointers = useRef(new Map<number, Point>());
  const gesture = useRef<Gesture>(NO_GESTURE);
  // Whether the pointer gesture under way (or just finished) moved: then its click is not a click.
  const moved = useRef(false);
  const lastTap = useRef<Tap | null>(null);
  // Presses since the last drag ended: a double click needs two, or it is a drag's click plus one.
  const pressesSinceDrag = useRef(Infinity);
  const lastPointerType = useRef('');
  // Where the pointer went down for the click that is coming.
  const pressTarget = useRef<EventTarget | null>(null);

  const total = images.length;
  const current = images[index];
  const hasPrevious = index > 0;
  const hasNext = index < total - 1;

  useLayoutEffect(() => {
    viewRef.current = view;
  }, [view]);

  // A new image starts a new gesture, too.
  useEffect(() => {
    pointers.current.clear();
    gesture.current = NO_GESTURE;
    lastTap.current = null;
    setDrag(NO_DRAG);
    setGesturing(false);
  }, [index]);

  const commitView = useCallback(
    (next: View) => {
      viewRef.current = next;
      setZoom({ index, view: next });
    },
    [index],
  );

  const measure = useCallback((): { content: Size; viewport: Size } => {
    const img = imgRef.current;
    const stage = stageRef.current;
    return {
      // Layout sizes, which transforms do not change: the image as fitted at 1×.
      content: { width: img?.offsetWidth ?? 0, height: img?.offsetHeight ?? 0 },
      viewport: { width: stage?.clientWidth ?? 0, height: stage?.clientHeight ?? 0 },
    };
  }, []);

  /** A viewport point from client coordinates, measured from the stage's centre. */
  const toStage = useCallback((clientX: number, clientY: number): Point => {
    const rect = stageRef.current?.getBoundingClientRect();
    if (!rect) return { x: 0, y: 0 };
    return { x: clientX - rect.left - rect.width / 2, y: clientY - rect.top - rect.height / 2 };
  }, []);

  const zoomTo = useCallback(
    (scale: number, focus: Point = { x: 0, y: 0 }) => {
      const { content, viewport } = measure();
      commitView(zoomAt(viewRef.current, scale, focus, content, viewport));
    },
    [commitView, measure],
  );

  const zoomBy = useCallback((factor: number) => zoomTo(viewRef.current.scale * factor), [zoomTo]);
  const resetZoom = useCallback(() => commitView(IDENTITY_VIEW), [commitView]);

  const toggleZoom = useCallback(
    (focus: Point) => {
      if (isZoomed(viewRef.current.scale)) resetZoom();
      else zoomTo(DOUBLE_TAP_SCALE, focus);
    },
    [resetZoom, zoomTo],
  );

  const goPrevious = () => {
    if (index > 0) props.onIndexChange(index - 1);
  };
  const goNext = () => {
    if (index < total - 1) props.onIndexChange(index + 1);
  };
  const close = () => props.onClose();

  // Lock the page behind the lightbox, keeping its width when the scrollbar goes away.
  useEffect(() => {
    const { body, documentElement } = document;
    const overflow = body.style.overflow;
    const paddingRight = body.style.paddingRight;
    const scrollbar = window.innerWidth - documentElement.clientWidth;
    body.style.overflow = 'hidden';
    if (documentElement.clientWidth > 0 && scrollbar > 0) {
      const padding = Number.parseFloat(getComputedStyle(body).paddingRight) || 0;
      body.style.paddingRight = `${padding + scrollbar}px`;
    }
    return () => {
      body.style.overflow = overflow;
      body.style.paddingRight = paddingRight;
    };
  }, []);

  // Move focus in on open and give it back on close; keep it inside while open.
  useEffect(() => {
    const dialog = dialogRef.current;
    const previous = document.activeElement;
    dialog?.focus({ preventScroll: true });
    const onFocusIn = (event: FocusEvent) => {
      if (dialog && event.target instanceof Node && !dialog.contains(event.target)) {
        dialog.focus({ preventScroll: true });
      }
    };
    document.addEventListener('focusin', onFocusIn);
    return () => {
      document.removeEventListener('focusin', onFocusIn);
      if (previous instanceof HTMLElement && previous.isConnected) previous.focus({ preventScroll: true });
    };
  }, []);

  // A button that gets disabled while focused (next at the last image, zoom out at 1×) drops focus
  // to the page; catch it so the keys keep working.
  useEffect(() => {
    const dialog = dialogRef.current;
    const active = document.activeElement;
    if (!dialog) return;
    if (!active || active === document.body || (active instanceof HTMLButtonElement && active.disabled)) {
      dialog.focus({ preventScroll: true });
    }
  });

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
  }, [zoomTo, toStage]);

  // Warm the cache for the neighbours so moving on shows them at once.
  useEffect(() => {
    for (const neighbour of [images[index - 1], images[index + 1]]) {
      if (neighbour) new Image().src = neighbour.src;
    }
  }, [images, index]);

  const startPinch = () => {
    const [a, b] = [...pointers.current.values()];
    if (!a || !b) return;
    const { distance, center } = pinchGeometry(toStage(a.x, a.y), toStage(b.x, b.y));
    gesture.current = { kind: 'pinch', startView: viewRef.current, startCenter: center, startDistance: distance };
    moved.current = true;
    setDrag(NO_DRAG);
  };

  const onPointerDown = (event: ReactPointerEvent<HTMLDivElement>) => {
    if (event.pointerType === 'mouse' && event.button !== 0) return;
    lastPointerType.current = event.pointerType;
    const point = { x: event.clientX, y: event.clientY };
    pointers.current.set(event.pointerId, point);
    capturePointer(event.currentTarget, event.pointerId);
    setGesturing(true);
    if (pointers.current.size === 1) {
      moved.current = false;
      gesture.current = isZoomed(viewRef.current.scale)
        ? { kind: 'pan', pointerId: event.pointerId, start: point, startView: viewRef.current }
        : { kind: 'swipe', pointerId: event.pointerId, start: point, startTime: performance.now() };
    } else if (pointers.current.size === 2) {
      startPinch();
    }
  };

  const onPointerMove = (event: ReactPointerEvent<HTMLDivElement>) => {
    if (!pointers.current.has(event.pointerId)) return;
    const point = { x: event.clientX, y: event.clientY };
    pointers.current.set(event.pointerId, point);
    const g = gesture.current;
    if (g.kind === 'pinch') {
      const [a, b] = [...pointers.current.values()];
      if (!a || !b) return;
      const { distance, center } = pinchGeometry(toStage(a.x, a.y), toStage(b.x, b.y));
      const { content, viewport } = measure();
      commitView(pinchView(g.startView, g.startCenter, g.startDistance, center, distance, content, viewport));
      return;
    }
    if (g.kind === 'none' || g.pointerId !== event.pointerId) return;
    const dx = point.x - g.start.x;
    const dy = point.y - g.start.y;
    if (!moved.current && Math.hypot(dx, dy) > TAP_SLOP) moved.current = true;
    if (!moved.current) return;
    if (g.kind === 'pan') {
      const { content, viewport } = measure();
      commitView(
        clampView({ scale: g.startView.scale, x: g.startView.x + dx, y: g.startView.y + dy }, content, viewport),
      );
    } else {
      // Resist where there is nothing to go to.
      const blocked = (dx > 0 && !hasPrevious) || (dx < 0 && !hasNext);
      setDrag({ x: blocked ? dx / 4 : dx, y: Math.max(0, dy) });
    }
  };

  const endPointer = (event: ReactPointerEvent<HTMLDivElement>, cancelled: boolean) => {
    if (!pointers.current.has(event.pointerId)) return;
    const end = { x: event.clientX, y: event.clientY };
    const now = performance.now();
    pointers.current.delete(event.pointerId);
    releasePointer(event.currentTarget, event.pointerId);
    const remaining = pointers.current.size;
    if (remaining === 0) setGesturing(false);

    const g = gesture.current;
    if (g.kind === 'pinch') {
      pressesSinceDrag.current = 0;
      const [rest] = [...pointers.current.entries()];
      if (remaining >= 2) startPinch();
      else if (rest && isZoomed(viewRef.current.scale)) {
        // Carry on panning with the finger left on the screen; never turn a pinch into a swipe.
        gesture.current = { kind: 'pan', pointerId: rest[0], start: rest[1], startView: viewRef.current };
      } else gesture.current = NO_GESTURE;
      return;
    }
    if (g.kind === 'none' || g.pointerId !== event.pointerId) return;
    gesture.current = NO_GESTURE;
    setDrag(NO_DRAG);
    if (cancelled) return;
    if (Math.hypot(end.x - g.start.x, end.y - g.start.y) > TAP_SLOP) moved.current = true;

    if (moved.current) {
      pressesSinceDrag.current = 0;
      if (g.kind !== 'swipe') return;
      const direction = detectSwipe(g.start, end, now - g.startTime);
      if (direction === 'left') goNext();
      else if (direction === 'right') goPrevious();
      else if (direction === 'down') close();
      return;
    }
    // Mice get the browser's double click; fingers and pens are timed here.
    if (event.pointerType === 'touch' || event.pointerType === 'pen') {
      const tap = { ...end, time: now };
      if (isDoubleTap(lastTap.current, tap)) {
        lastTap.current = null;
        toggleZoom(toStage(end.x, end.y));
      } else lastTap.current = tap;
    }
  };

  const onDoubleClick = (event: ReactMouseEvent<HTMLDivElement>) => {
    if (lastPointerType.current === 'touch' || lastPointerType.current === 'pen') return;
    // Pointer capture sends the double click to the stage; what counts is where it was pressed.
    if (event.target !== imgRef.current && pressTarget.current !== imgRef.current) return;
    if (pressesSinceDrag.current < 2) return;
    toggleZoom(toStage(event.clientX, event.clientY));
  };

  const isBackdrop = (target: EventTarget | null) =>
    target instanceof Element && target !== imgRef.current && !target.closest('button');

  const onClick = (event: ReactMouseEvent<HTMLDivElement>) => {
    const pressed = pressTarget.current;
    // The click that ends a drag, swipe or pinch is not a click on the backdrop.
    if (moved.current) return;
    // With pointer capture the click lands on the stage even when the press was on the image, so
    // the press must have been on the backdrop, too.
    if (!isBackdrop(event.target) || (pressed && !isBackdrop(pressed))) return;
    close();
  };

  const trapTab = (event: ReactKeyboardEvent<HTMLDivElement>) => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    const focusable = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    const active = document.activeElement;
    const outside = !active || !dialog.contains(active);
    if (!first || !last) {
      event.preventDefault();
      dialog.focus();
    } else if (event.shiftKey && (active === first || active === dialog || outside)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || outside)) {
      event.preventDefault();
      first.focus();
    }
  };

  const onKeyDown = (event: ReactKeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Tab') {
      trapTab(event);
      return;
    }
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    switch (event.key) {
      case 'Escape':
        event.stopPropagation();
        close();
        break;
      case 'ArrowLeft':
        goPrevious();
        break;
      case 'ArrowRight':
        goNext();
        break;
      case '+':
      case '=':
        zoomBy(ZOOM_STEP);
        break;
      case '-':
        zoomBy(1 / ZOOM_STEP);
        break;
      case '0':
        resetZoom();
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  const zoomed = isZoomed(view.scale);
  const stageClass = [styles.stage, gesturing && styles.gesturing, zoomed && styles.zoomed].filter(Boolean).join(' ');
  const transform = `translate3d(${view.x + drag.x}px, ${view.y + drag.y}px, 0) scale(${view.scale})`;
  const opacity = drag.y > 0 ? Math.max(0.4, 1 - drag.y / 400) : undefined;

  return createPortal(
    <div
      ref={dialogRef}
      className={styles.overlay}
      role="dialog"
      aria-modal="true"
      aria-label={t('lightbox.title')}
      tabIndex={-1}
      onKeyDown={onKeyDown}
      onClick={onClick}
      onPointerDownCapture={(event) => {
        moved.current = false;
        pressTarget.current = event.target;
        pressesSinceDrag.current += 1;
      }}
    >
      <div
        ref={stageRef}
        className={stageClass}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={(event) => endPointer(event, false)}
        onPointerCancel={(event) => endPointer(event, true)}
        onLostPointerCapture={(event) => endPointer(event, true)}
        onDoubleClick={onDoubleClick}
      >
        {current && (
          <img
            key={current.src}
            ref={imgRef}
            className={styles.image}
            src={current.src}
            alt={current.alt}
            draggable={false}
            style={{ transform, opacity }}
            onDragStart={(event) => event.preventDefault()}
          />
        )}
      </div>

      <div className={styles.toolbar}>
        <p className={styles.counter} aria-live="polite">
          {t('lightbox.counter', { current: Math.min(index + 1, total), total })}
        </p>
        <div className={styles.actions}>
          <button
            type="button"
            className={styles.button}
            aria-label={t('lightbox.zoom_out')}
            title={t('lightbox.zoom_out')}
            disabled={!zoomed}
            onClick={() => zoomBy(1 / ZOOM_STEP)}
          >
            <Icon path={ICONS.zoomOut} />
          </button>
          <button
            type="button"
            className={styles.button}
            aria-label={t('lightbox.zoom_in')}
            title={t('lightbox.zoom_in')}
            disabled={view.scale >= MAX_SCALE}
            onClick={() => zoomBy(ZOOM_STEP)}
          >
            <Icon path={ICONS.zoomIn} />
          </button>
          <button
            type="button"
            className={styles.button}
            aria-label={t('lightbox.close')}
            title={t('lightbox.close')}
            onClick={close}
          >
            <Icon path={ICONS.close} />
          </button>
        </div>
      </div>

      {total > 1 && (
        <>
          <button
            type="button"
            className={`${styles.button} ${styles.nav} ${styles.previous}`}
            aria-label={t('lightbox.previous')}
            title={t('lightbox.previous')}
            disabled={!hasPrevious}
            onClick={goPrevious}
          >
            <Icon path={ICONS.previous} />
          </button>
          <button
            type="button"
            className={`${styles.button} ${styles.nav} ${styles.next}`}
            aria-label={t('lightbox.next')}
            title={t('lightbox.next')}
            disabled={!hasNext}
            onClick={goNext}
          >
            <Icon path={ICONS.next} />
          </button>
        </>
      )}
    </div>,
    document.body,
  );
}
