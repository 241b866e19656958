import { cleanup, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { usePreloadNeighbours } from './usePreloadNeighbours.ts';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** Records the sources of the Image objects the hook creates. */
function recordImages(): string[] {
  const loaded: string[] = [];
  class RecordingImage {
    set src(value: string) {
      loaded.push(value);
    }
  }
  vi.stubGlobal('Image', RecordingImage);
  return loaded;
}

const images = ['a', 'b', 'c', 'd'].map((name) => ({ src: `/files/${name}` }));

describe('usePreloadNeighbours', () => {
  it('loads the images on both sides of the one shown', () => {
    const loaded = recordImages();
    renderHook(() => usePreloadNeighbours(images, 1));
    expect(loaded).toEqual(['/files/a', '/files/c']);
  });

  it('loads only the neighbour that exists at either end', () => {
    const loaded = recordImages();
    const { rerender } = renderHook(({ index }) => usePreloadNeighbours(images, index), {
      initialProps: { index: 0 },
    });
    expect(loaded).toEqual(['/files/b']);
    rerender({ index: 3 });
    expect(loaded).toEqual(['/files/b', '/files/c']);
  });

  it('does not load again when the neighbours stay the same', () => {
    const loaded = recordImages();
    const { rerender } = renderHook(({ list }) => usePreloadNeighbours(list, 1), { initialProps: { list: images } });
    rerender({ list: [...images] });
    expect(loaded).toEqual(['/files/a', '/files/c']);
  });
});
