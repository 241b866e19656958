import { useRef } from 'react';
import type { JSX, KeyboardEvent as ReactKeyboardEvent } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from '../../lib/i18n';
import { keyAction } from './keys.ts';
import type { LightboxAction } from './keys.ts';
import { LightboxNav } from './LightboxNav.tsx';
import { LightboxToolbar } from './LightboxToolbar.tsx';
import styles from './Lightbox.module.css';
import { useModalFocus } from './useModalFocus.ts';
import { usePointerGestures } from './usePointerGestures.ts';
import { usePreloadNeighbours } from './usePreloadNeighbours.ts';
import { useScrollLock } from './useScrollLock.ts';
import { useZoom } from './useZoom.ts';
import { MAX_SCALE, ZOOM_STEP, isZoomed } from './zoom.ts';

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
  const imageRef = useRef<HTMLImageElement>(null);

  const total = images.length;
  const current = images[index];
  const hasPrevious = index > 0;
  const hasNext = index < total - 1;
  const goPrevious = () => {
    if (hasPrevious) props.onIndexChange(index - 1);
  };
  const goNext = () => {
    if (hasNext) props.onIndexChange(index + 1);
  };
  const close = () => props.onClose();

  const zoom = useZoom(index, stageRef, imageRef);
  const { drag, gesturing, stageHandlers, dialogHandlers } = usePointerGestures({
    index,
    zoom,
    imageRef,
    hasPrevious,
    hasNext,
    onPrevious: goPrevious,
    onNext: goNext,
    onClose: close,
  });
  useScrollLock();
  const trapTab = useModalFocus(dialogRef);
  usePreloadNeighbours(images, index);

  const run = (action: LightboxAction) => {
    switch (action) {
      case 'close':
        return close();
      case 'previous':
        return goPrevious();
      case 'next':
        return goNext();
      case 'zoomIn':
        return zoom.zoomBy(ZOOM_STEP);
      case 'zoomOut':
        return zoom.zoomBy(1 / ZOOM_STEP);
      case 'resetZoom':
        return zoom.reset();
    }
  };

  const onKeyDown = (event: ReactKeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Tab') {
      trapTab(event);
      return;
    }
    const action = keyAction(event);
    if (action === null) return;
    // Escape closes the lightbox only, not a dialog or page behind it.
    if (action === 'close') event.stopPropagation();
    run(action);
    event.preventDefault();
  };

  const { view } = zoom;
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
      {...dialogHandlers}
    >
      <div ref={stageRef} className={stageClass} {...stageHandlers}>
        {current && (
          <img
            key={current.src}
            ref={imageRef}
            className={styles.image}
            src={current.src}
            alt={current.alt}
            draggable={false}
            style={{ transform, opacity }}
            onDragStart={(event) => event.preventDefault()}
          />
        )}
      </div>

      <LightboxToolbar
        index={index}
        total={total}
        canZoomIn={view.scale < MAX_SCALE}
        canZoomOut={zoomed}
        onZoomIn={() => zoom.zoomBy(ZOOM_STEP)}
        onZoomOut={() => zoom.zoomBy(1 / ZOOM_STEP)}
        onClose={close}
      />

      {total > 1 && <LightboxNav hasPrevious={hasPrevious} hasNext={hasNext} onPrevious={goPrevious} onNext={goNext} />}
    </div>,
    document.body,
  );
}
