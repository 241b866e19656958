import { useEffect, useRef } from 'react';
import type { RefObject } from 'react';
import { useStateResetOn } from '../../hooks/useStateResetOn';
import { throttle } from '../../lib/throttle';
import { FEED_STEP, initialVisibleCount, isNearBottom } from './paging';

/**
 * How many cards of a group's feed are shown (product spec §4): first exactly the spec's count for
 * the screen, then FEED_STEP more whenever the reader scrolls near the bottom. A page that the
 * first cards do not fill cannot scroll, so no scroll would ever come: there the end of the cards
 * being on screen counts as being near the bottom. Attach the returned ref to an empty element
 * right after the cards.
 */
export function useRevealedCount(groupId: string, loaded: number): [number, RefObject<HTMLDivElement | null>] {
  const [visible, setVisible] = useStateResetOn(groupId, () =>
    initialVisibleCount(window.innerWidth, window.innerHeight),
  );
  const endRef = useRef<HTMLDivElement>(null);

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
    const end = endRef.current;
    if (end === null || loaded === 0 || visible >= loaded || typeof IntersectionObserver === 'undefined') return;
    // The end of the cards on screen of a page too short to scroll: the screen is not filled. A fresh observer reports at once,
    // and there is one per count, so a reveal that still leaves the screen unfilled is followed by
    // another, until the screen is full or every loaded card shows. Layout changes (a picture
    // decoding, the window growing) are seen too, which a measurement after rendering would miss.
    let revealed = false;
    const observer = new IntersectionObserver((entries) => {
      if (revealed || !entries.some((entry) => entry.isIntersecting)) return;
      // On a page that scrolls, the end shows only once the reader scrolled to it, and the scroll
      // rule above has revealed more already.
      if (document.documentElement.scrollHeight > window.innerHeight) return;
      revealed = true;
      setVisible((count) => count + FEED_STEP);
    });
    observer.observe(end);
    return () => observer.disconnect();
  }, [visible, loaded, setVisible]);

  return [visible, endRef];
}
