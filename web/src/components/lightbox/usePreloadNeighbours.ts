import { useEffect } from 'react';

/** Warms the browser's cache with the images before and after `index`, so moving on shows them at once. */
export function usePreloadNeighbours(images: readonly { src: string }[], index: number): void {
  const previous = images[index - 1]?.src;
  const next = images[index + 1]?.src;
  useEffect(() => {
    for (const src of [previous, next]) {
      if (src !== undefined) new Image().src = src;
    }
  }, [previous, next]);
}
