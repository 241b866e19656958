import { useEffect, useRef } from 'react';
import type { RefObject } from 'react';
import { useStateResetOn } from '../../hooks/useStateResetOn';
import { throttle } from '../../lib/throttle';
import { FEED_STEP, initialVisibleCount, isNearBottom } from './paging';

/**
 * How many cards of a group's feed are shown (product spec §4): a first screenful, FEED_STEP more
 * whenever the reader scrolls near the bottom, and more while the page is too short to scroll.
 * Attach the returned ref to the feed's page, which the last rule measures.
 */
export function useRevealedCount(groupId: string, loaded: number): [number, RefObject<HTMLDivElement | null>] {
  const [visible, setVisible] = useStateResetOn(groupId, () =>
    initialVisibleCount(window.innerWidth, window.innerHeight),
  );
  const pageRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    // Near the bottom, 10 more cards show; the handler is throttled to 100 ms (product spec §4, §7).
    const handler = throttle(() => {
      const metrics = {
        scrollTop: window.scrollY,
        viewportHeight: window.innerHeight,
        contentHeight: document.documentElement.scrollHeight,
      };
      if (window.scrollY > 0 && isNearBottom(metrics)) setVisible((count) => count + FEED_STEP);
    }, 100);
    window.addEventListener('scroll', handler, { passive: true });
    return () => {
      handler.cancel();
      window.removeEventListener('scroll', handler);
    };
  }, [setVisible]);

  useEffect(() => {
    // A screen taller than the cards shown cannot scroll, so no scroll would ever reveal more. The
    // page is measured after it rendered the cards, through its own element.
    const page = pageRef.current?.ownerDocument.documentElement;
    if (page && loaded > 0 && visible < loaded && page.scrollHeight <= window.innerHeight) {
      setVisible((count) => count + FEED_STEP);
    }
  }, [visible, loaded, setVisible]);

  return [visible, pageRef];
}
