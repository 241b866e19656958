import { describe, expect, it } from 'vitest';
import { isShowable, MAX_OUTPUT_SIDE, outputBox, parseImageRequest } from './images.js';
import { contentDisposition, dispositionOf } from './routes.js';

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

describe('Content-Disposition of served files', () => {
  it('shows pictures, video and audio, and downloads the rest', () => {
    for (const type of ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'video/mp4', 'audio/mp4', 'audio/mpeg']) {
      expect(dispositionOf(type), type).toBe('inline');
    }
    for (const type of ['application/pdf', 'image/svg+xml', 'text/html', 'application/octet-stream']) {
      expect(dispositionOf(type), type).toBe('attachment');
    }
  });

  it('keeps the name, with filename* for names that are not plain ASCII', () => {
    expect(contentDisposition('notes.pdf', 'attachment')).toBe('attachment; filename="notes.pdf"');
    expect(contentDisposition('Été "1".pdf', 'attachment')).toBe(
      `attachment; filename="_t_ _1_.pdf"; filename*=UTF-8''%C3%89t%C3%A9%20%221%22.pdf`,
    );
    expect(contentDisposition('a.jpg')).toBe('inline; filename="a.jpg"');
  });
});
