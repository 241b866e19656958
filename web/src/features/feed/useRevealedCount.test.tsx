import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FEED_STEP, initialVisibleCount } from './paging';
import { useRevealedCount } from './useRevealedCount';

function Feed({ groupId, loaded }: { groupId: string; loaded: number }) {
  const [visible, pageRef] = useRevealedCount(groupId, loaded);
  return (
    <div ref={pageRef} data-testid="page">
      {visible}
    </div>
  );
}

function shown(): number {
  return Number(screen.getByTestId('page').textContent);
}

/** Makes the document `height` px tall and scrolled to `scrollY`, as jsdom does no layout. */
function layout(height: number, scrollY: number): void {
  Object.defineProperty(document.documentElement, 'scrollHeight', { configurable: true, value: height });
  Object.defineProperty(window, 'scrollY', { configurable: true, value: scrollY });
}

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  // Back to jsdom's own values (0): the properties defined above shadow the prototype's getters.
  Reflect.deleteProperty(document.documentElement, 'scrollHeight');
  Reflect.deleteProperty(window, 'scrollY');
});

const firstScreen = initialVisibleCount(window.innerWidth, window.innerHeight);

describe('useRevealedCount', () => {
  it('starts with a screenful of cards', () => {
    render(<Feed groupId="g1" loaded={0} />);
    expect(firstScreen).toBeGreaterThan(1);
    expect(shown()).toBe(firstScreen);
  });

  it('reveals more while the page is too short to scroll, until every loaded card shows', () => {
    layout(100, 0);
    render(<Feed groupId="g1" loaded={firstScreen + 2 * FEED_STEP - 1} />);
    expect(shown()).toBe(firstScreen + 2 * FEED_STEP);
  });

  it('does not reveal more on a page that scrolls until the reader scrolls near the bottom', () => {
    vi.useFakeTimers();
    layout(10_000, 0);
    render(<Feed groupId="g1" loaded={100} />);
    expect(shown()).toBe(firstScreen);
    // At the top nothing happens, even on a scroll event.
    fireEvent.scroll(window);
    expect(shown()).toBe(firstScreen);
    layout(10_000, 10_000 - window.innerHeight - 100);
    fireEvent.scroll(window);
    // The handler runs at most every 100 ms: this scroll is seen when the wait ends.
    act(() => {
      vi.advanceTimersByTime(100);
    });
    expect(shown()).toBe(firstScreen + FEED_STEP);
  });

  it('starts again with a screenful when another group opens', () => {
    layout(100, 0);
    const { rerender } = render(<Feed groupId="g1" loaded={60} />);
    expect(shown()).toBeGreaterThan(firstScreen);
    layout(10_000, 0);
    rerender(<Feed groupId="g2" loaded={0} />);
    expect(shown()).toBe(firstScreen);
  });
});
