import { describe, expect, it } from 'vitest';
import { keyAction } from './keys.ts';

const plain = { altKey: false, ctrlKey: false, metaKey: false };

describe('keyAction', () => {
  it('maps the lightbox keys to their actions', () => {
    expect(keyAction({ ...plain, key: 'Escape' })).toBe('close');
    expect(keyAction({ ...plain, key: 'ArrowLeft' })).toBe('previous');
    expect(keyAction({ ...plain, key: 'ArrowRight' })).toBe('next');
    expect(keyAction({ ...plain, key: '+' })).toBe('zoomIn');
    expect(keyAction({ ...plain, key: '=' })).toBe('zoomIn');
    expect(keyAction({ ...plain, key: '-' })).toBe('zoomOut');
    expect(keyAction({ ...plain, key: '0' })).toBe('resetZoom');
  });

  it('leaves other keys and shortcuts with a modifier to the browser', () => {
    expect(keyAction({ ...plain, key: 'a' })).toBeNull();
    expect(keyAction({ ...plain, key: 'ArrowUp' })).toBeNull();
    // Names of Object.prototype members are not keys of the table.
    expect(keyAction({ ...plain, key: 'toString' })).toBeNull();
    expect(keyAction({ ...plain, key: '+', ctrlKey: true })).toBeNull();
    expect(keyAction({ ...plain, key: '0', metaKey: true })).toBeNull();
    expect(keyAction({ ...plain, key: 'ArrowLeft', altKey: true })).toBeNull();
  });
});
