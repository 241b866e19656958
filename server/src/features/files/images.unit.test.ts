import { describe, expect, it } from 'vitest';
import { isShowable, MAX_OUTPUT_SIDE, outputBox, parseImageRequest } from './images.js';

describe('isShowable (sides at most 1:50 apart)', () => {
  it('takes 1:50 either way and refuses past it', () => {
    expect(isShowable(20, 1000)).toBe(true);
    expect(isShowable(1000, 20)).toBe(true);
    expect(isShowable(20, 1001)).toBe(false);
    expect(isShowable(1, 100_000)).toBe(false);
    expect(isShowable(4096, 1)).toBe(false);
    expect(isShowable(0, 10)).toBe(false);
  });

  it('allows the rounding of a scaled upload when asked', () => {
    // 5000 × 100 (1:50) scaled to 4096 wide is 81.92 px high: 82 when rounded, 81 if cut.
    expect(isShowable(4096, 82)).toBe(true);
    expect(isShowable(4096, 81)).toBe(false);
    expect(isShowable(4096, 81, 1)).toBe(true);
    expect(isShowable(4096, 80, 1)).toBe(false);
  });
});

describe('outputBox (what JPEG and WebP can hold)', () => {
  it('clamps each side of a thumbnail box to the format', () => {
    const tall = parseImageRequest('thumbnail', '720', '99999');
    expect(outputBox(tall, 'jpeg')).toEqual({ width: 720, height: MAX_OUTPUT_SIDE.jpeg });
    expect(outputBox(tall, 'webp')).toEqual({ width: 720, height: MAX_OUTPUT_SIDE.webp });
    expect(outputBox(parseImageRequest('thumbnail', '1280', '720'), 'webp')).toEqual({ width: 1280, height: 720 });
  });

  it('leaves the crop boxes as they are (all fit both formats)', () => {
    for (const size of ['320/180', '1024/270', '80/80']) {
      const [w = '', h = ''] = size.split('/');
      expect(outputBox(parseImageRequest('crop', w, h), 'webp')).toEqual({ width: Number(w), height: Number(h) });
    }
  });

  it('JPEG stops at 65,500 px and WebP at 16,383 px', () => {
    expect(MAX_OUTPUT_SIDE).toEqual({ jpeg: 65_500, webp: 16_383 });
  });
});
