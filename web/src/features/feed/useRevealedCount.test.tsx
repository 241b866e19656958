import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FEED_STEP, initialVisibleCount } from './paging';
import { useRevealedCount } from './useRevealedCount';

function Feed({ groupId, loaded }: { groupId: string; loaded: number }) {
  const [visible, endRef] = useRevealedCount(groupId, loaded);
  return (
    <>
      <div data-testid="page">{visible}</div>
      <div ref={endRef} data-testid="end" />
    </>
  );
}

/** A stand-in for the browser's IntersectionObserver (jsdom has none): `onScreen` says what it reports. */
class FakeObserver {
  static onScreen = false;
  static live = new Set<FakeObserver>();
  constructor(private readonly callback: (entries: { isIntersecting: boolean }[]) => void) {}
  observe() {
    FakeObserver.live.add(this);
    // Like the browser, a new observer reports the target's state once, asynchronously.
    queueMicrotask(() => {
      if (FakeObserver.live.has(this)) this.callback([{ isIntersecting: FakeObserver.onScreen }]);
    });
  }
  disconnect() {
    FakeObserver.live.delete(this);
  }
  /** Reports a change of the end's visibility to every live observer. */
  static report(onScreen: boolean) {
    FakeObserver.onScreen = onScreen;
    for (const observer of FakeObserver.live) observer.callback([{ isIntersecting: onScreen }]);
  }
}

/** Lets the observers' first reports and the renders they cause run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await act(async () => undefined);
}

function shown(): number {
  return Number(screen.getByTestId('page').textContent);
}

/** Makes the document `height` px tall and scrolled to `scrollY`, as jsdom does no layout. */
function layout(height: number, scrollY: number): void {
  Object.defineProperty(document.documentElement, 'scrollHeight', { configurable: true, value: height });
  Object.defineProperty(window, 'scrollY', { configurable: true, value: scrollY });
}

beforeEach(() => {
  FakeObserver.onScreen = false;
  FakeObserver.live.clear();
  vi.stubGlobal('IntersectionObserver', FakeObserver);
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
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

  it('shows exactly the spec’s count first, even on a page too short to scroll', async () => {
    layout(100, 0);
    render(<Feed groupId="g1" loaded={100} />);
    await settle();
    expect(shown()).toBe(firstScreen);
  });

  it('reveals 10 more while the end of the cards is on screen, until every loaded card shows', async () => {
    FakeObserver.onScreen = true;
    render(<Feed groupId="g1" loaded={firstScreen + 2 * FEED_STEP - 1} />);
    await settle();
    expect(shown()).toBe(firstScreen + 2 * FEED_STEP);
    // Every loaded card shows: nothing is watched any more, once the last render's effects ran
    // (Preact runs them after the next frame).
    await vi.waitFor(() => expect(FakeObserver.live.size).toBe(0));
  });

  it('leaves a page that scrolls to the scroll rule, even with the end on screen', async () => {
    layout(10_000, 0);
    FakeObserver.onScreen = true;
    render(<Feed groupId="g1" loaded={100} />);
    await settle();
    expect(shown()).toBe(firstScreen);
  });

  it('stops revealing once the screen is full, and goes on when the end comes into view', async () => {
    render(<Feed groupId="g1" loaded={100} />);
    await settle();
    expect(shown()).toBe(firstScreen);
    act(() => FakeObserver.report(true));
    await settle();
    // One step per report, then the next observer's first report (still on screen) adds another.
    expect(shown()).toBeGreaterThanOrEqual(firstScreen + FEED_STEP);
    FakeObserver.onScreen = false;
    const count = shown();
    await settle();
    expect(shown()).toBe(count);
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

  it('starts again with a screenful when another group opens', async () => {
    FakeObserver.onScreen = true;
    const { rerender } = render(<Feed groupId="g1" loaded={60} />);
    await settle();
    expect(shown()).toBeGreaterThan(firstScreen);
    FakeObserver.onScreen = false;
    rerender(<Feed groupId="g2" loaded={0} />);
    await settle();
    expect(shown()).toBe(firstScreen);
  });
});
