import { useRef } from 'react';
import type { MouseEvent as ReactMouseEvent, PointerEvent as ReactPointerEvent, RefObject } from 'react';

/** What a press turned out to be, for the click and double click the browser sends after it. */
export interface PressIntent {
  /** On the dialog, capture phase: every press starts here, on the stage or on the toolbar. */
  onPointerDownCapture: (event: ReactPointerEvent) => void;
  /** On the dialog: a click on the backdrop closes, unless the press moved or began on the image. */
  onClick: (event: ReactMouseEvent) => void;
  /** On the stage: a mouse double click on the image zooms, unless it was a drag's click plus one. */
  onDoubleClick: (event: ReactMouseEvent) => void;
  /** A pointer went down on the stage; `first` when no other one is down. */
  pointerDown: (pointerType: string, first: boolean) => void;
  /** The press moved (or became a pinch): its click is not a click. */
  markMoved: () => void;
  hasMoved: () => boolean;
  /** A drag, swipe or pinch ended: a double click now needs two fresh presses. */
  dragEnded: () => void;
}

/**
 * Tells clicks from the ends of gestures. With pointer capture the browser sends the click (and
 * double click) to the stage wherever the press began, so what counts is where it was pressed and
 * whether it moved.
 */
export function usePressIntent(
  imageRef: RefObject<HTMLElement | null>,
  onBackdropClick: () => void,
  onImageDoubleClick: (clientX: number, clientY: number) => void,
): PressIntent {
  // Whether the pointer gesture under way (or just finished) moved: then its click is not a click.
  const moved = useRef(false);
  // Presses since the last drag ended: a double click needs two, or it is a drag's click plus one.
  const pressesSinceDrag = useRef(Infinity);
  const lastPointerType = useRef('');
  // Where the pointer went down for the click that is coming.
  const pressTarget = useRef<EventTarget | null>(null);

  const isBackdrop = (target: EventTarget | null) =>
    target instanceof Element && target !== imageRef.current && !target.closest('button');

  return {
    onPointerDownCapture(event) {
      moved.current = false;
      pressTarget.current = event.target;
      pressesSinceDrag.current += 1;
    },
    onClick(event) {
      const pressed = pressTarget.current;
      // The click that ends a drag, swipe or pinch is not a click on the backdrop.
      if (moved.current) return;
      // With pointer capture the click lands on the stage even when the press was on the image,
      // so the press must have been on the backdrop, too.
      if (!isBackdrop(event.target) || (pressed && !isBackdrop(pressed))) return;
      onBackdropClick();
    },
    onDoubleClick(event) {
      // Fingers and pens are timed by the gestures; mice get the browser's double click.
      if (lastPointerType.current === 'touch' || lastPointerType.current === 'pen') return;
      const image = imageRef.current;
      if (event.target !== image && pressTarget.current !== image) return;
      if (pressesSinceDrag.current < 2) return;
      onImageDoubleClick(event.clientX, event.clientY);
    },
    pointerDown(pointerType, first) {
      lastPointerType.current = pointerType;
      if (first) moved.current = false;
    },
    markMoved() {
      moved.current = true;
    },
    hasMoved() {
      return moved.current;
    },
    dragEnded() {
      pressesSinceDrag.current = 0;
    },
  };
}
