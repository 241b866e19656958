import { describe, expect, it } from 'vitest';
import {
  clampPan,
  clampScale,
  clampView,
  detectSwipe,
  isDoubleTap,
  isZoomed,
  pinchGeometry,
  pinchView,
  wheelZoomFactor,
  zoomAt,
} from './zoom.ts';

const content = { width: 400, height: 300 };
const viewport = { width: 800, height: 600 };

describe('clampScale', () => {
  it('keeps scales between 1 and 5', () => {
    expect(clampScale(0.2)).toBe(1);
    expect(clampScale(1)).toBe(1);
    expect(clampScale(2.5)).toBe(2.5);
    expect(clampScale(5)).toBe(5);
    expect(clampScale(12)).toBe(5);
  });

  it('survives non-numbers', () => {
    expect(clampScale(Number.NaN)).toBe(1);
    expect(clampScale(Infinity)).toBe(5);
    expect(clampScale(-Infinity)).toBe(1);
  });

  it('tells zoomed from not zoomed', () => {
    expect(isZoomed(1)).toBe(false);
    expect(isZoomed(1.0000001)).toBe(false);
    expect(isZoomed(1.5)).toBe(true);
  });
});

describe('clampPan', () => {
  it('keeps an image that fits centred', () => {
    expect(clampPan({ x: 120, y: -80 }, 1, content, viewport)).toEqual({ x: 0, y: 0 });
    // 400×300 at 2× is exactly 800×600: still no room to move.
    expect(clampPan({ x: -5, y: 5 }, 2, content, viewport)).toEqual({ x: 0, y: 0 });
  });

  it('lets a zoomed image move until its edge reaches the viewport edge', () => {
    // At 4× the image is 1600×1200, so it may move 400 px sideways and 300 px up or down.
    expect(clampPan({ x: 100, y: -50 }, 4, content, viewport)).toEqual({ x: 100, y: -50 });
    expect(clampPan({ x: 1000, y: -1000 }, 4, content, viewport)).toEqual({ x: 400, y: -300 });
    expect(clampPan({ x: -1000, y: 1000 }, 4, content, viewport)).toEqual({ x: -400, y: 300 });
  });

  it('clamps each axis on its own', () => {
    // A wide panorama at 2× overflows sideways only.
    expect(clampPan({ x: 500, y: 500 }, 2, { width: 800, height: 200 }, viewport)).toEqual({ x: 400, y: 0 });
  });

  it('turns nonsense offsets into the centre', () => {
    expect(clampPan({ x: Number.NaN, y: Infinity }, 4, content, viewport)).toEqual({ x: 0, y: 0 });
  });

  it('clamps scale and pan together', () => {
    expect(clampView({ scale: 9, x: 5000, y: 0 }, content, viewport)).toEqual({ scale: 5, x: 600, y: 0 });
    expect(clampView({ scale: 0.5, x: 30, y: 30 }, content, viewport)).toEqual({ scale: 1, x: 0, y: 0 });
  });
});

describe('zoomAt', () => {
  it('keeps the point under the pointer in place', () => {
    const start = { scale: 2, x: 0, y: 0 };
    const focus = { x: 100, y: 50 };
    const next = zoomAt(start, 4, focus, content, viewport);
    expect(next.scale).toBe(4);
    // The image point under the focus before: (focus - pan) / scale; it must map back to the focus.
    const before = { x: (focus.x - start.x) / start.scale, y: (focus.y - start.y) / start.scale };
    expect(next.x + before.x * next.scale).toBeCloseTo(focus.x);
    expect(next.y + before.y * next.scale).toBeCloseTo(focus.y);
  });

  it('zooms around the centre without panning', () => {
    expect(zoomAt({ scale: 1, x: 0, y: 0 }, 1.5, { x: 0, y: 0 }, content, viewport)).toEqual({
      scale: 1.5,
      x: 0,
      y: 0,
    });
  });

  it('clamps the result', () => {
    const next = zoomAt({ scale: 4, x: 300, y: 200 }, 20, { x: 390, y: 290 }, content, viewport);
    expect(next.scale).toBe(5);
    expect(Math.abs(next.x)).toBeLessThanOrEqual(600);
    expect(Math.abs(next.y)).toBeLessThanOrEqual(450);
    expect(zoomAt({ scale: 3, x: 200, y: 100 }, 0.5, { x: 10, y: 10 }, content, viewport)).toEqual({
      scale: 1,
      x: 0,
      y: 0,
    });
  });
});

describe('pinchView', () => {
  it('scales by the spread of the fingers', () => {
    const view = pinchView({ scale: 1, x: 0, y: 0 }, { x: 0, y: 0 }, 100, { x: 0, y: 0 }, 250, content, viewport);
    expect(view).toEqual({ scale: 2.5, x: 0, y: 0 });
  });

  it('moves the image with the midpoint of the fingers', () => {
    const view = pinchView({ scale: 3, x: 0, y: 0 }, { x: 0, y: 0 }, 100, { x: 40, y: -30 }, 100, content, viewport);
    expect(view).toEqual({ scale: 3, x: 40, y: -30 });
  });

  it('clamps and survives a zero start distance', () => {
    expect(pinchView({ scale: 4, x: 0, y: 0 }, { x: 0, y: 0 }, 10, { x: 0, y: 0 }, 1000, content, viewport).scale).toBe(
      5,
    );
    expect(pinchView({ scale: 2, x: 0, y: 0 }, { x: 0, y: 0 }, 0, { x: 0, y: 0 }, 50, content, viewport).scale).toBe(2);
  });

  it('measures two fingers', () => {
    expect(pinchGeometry({ x: 0, y: 0 }, { x: 30, y: 40 })).toEqual({ distance: 50, center: { x: 15, y: 20 } });
  });
});

describe('wheelZoomFactor', () => {
  it('zooms in on wheel up and out on wheel down', () => {
    expect(wheelZoomFactor(-100)).toBeGreaterThan(1);
    expect(wheelZoomFactor(100)).toBeLessThan(1);
    expect(wheelZoomFactor(0)).toBe(1);
  });

  it('treats lines and pages as bigger steps but caps each event', () => {
    expect(wheelZoomFactor(-3, 1)).toBeCloseTo(wheelZoomFactor(-48, 0));
    expect(wheelZoomFactor(-1, 2)).toBe(wheelZoomFactor(-100, 0));
    expect(wheelZoomFactor(-10000)).toBe(wheelZoomFactor(-100));
  });
});

describe('detectSwipe', () => {
  const start = { x: 200, y: 300 };

  it('finds quick horizontal swipes of at least 50 px', () => {
    expect(detectSwipe(start, { x: 150, y: 300 }, 200)).toBe('left');
    expect(detectSwipe(start, { x: 260, y: 310 }, 200)).toBe('right');
  });

  it('ignores short, slow or diagonal movements', () => {
    expect(detectSwipe(start, { x: 151, y: 300 }, 200)).toBeNull();
    expect(detectSwipe(start, { x: 100, y: 300 }, 600)).toBeNull();
    expect(detectSwipe(start, { x: 100, y: 230 }, 200)).toBeNull();
    expect(detectSwipe(start, start, 50)).toBeNull();
  });

  it('finds downward swipes of at least 100 px', () => {
    expect(detectSwipe(start, { x: 210, y: 400 }, 200)).toBe('down');
    expect(detectSwipe(start, { x: 210, y: 400 }, 2000)).toBe('down');
    expect(detectSwipe(start, { x: 200, y: 399 }, 200)).toBeNull();
    expect(detectSwipe(start, { x: 200, y: 100 }, 200)).toBeNull();
    expect(detectSwipe(start, { x: 330, y: 420 }, 2000)).toBeNull();
  });
});

describe('isDoubleTap', () => {
  it('needs a previous tap that was close in time and place', () => {
    const first = { x: 100, y: 100, time: 1000 };
    expect(isDoubleTap(null, first)).toBe(false);
    expect(isDoubleTap(first, { x: 110, y: 95, time: 1250 })).toBe(true);
    expect(isDoubleTap(first, { x: 110, y: 95, time: 1400 })).toBe(false);
    expect(isDoubleTap(first, { x: 180, y: 100, time: 1100 })).toBe(false);
    expect(isDoubleTap(first, { x: 100, y: 100, time: 900 })).toBe(false);
  });
});
