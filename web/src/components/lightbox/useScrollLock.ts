import { useEffect } from 'react';

/** Locks the page's scrolling while mounted, keeping its width when the scrollbar goes away. */
export function useScrollLock(): void {
  useEffect(() => {
    const { body, documentElement } = document;
    const overflow = body.style.overflow;
    const paddingRight = body.style.paddingRight;
    const scrollbar = window.innerWidth - documentElement.clientWidth;
    body.style.overflow = 'hidden';
    if (documentElement.clientWidth > 0 && scrollbar > 0) {
      const padding = Number.parseFloat(getComputedStyle(body).paddingRight) || 0;
      body.style.paddingRight = `${padding + scrollbar}px`;
    }
    return () => {
      body.style.overflow = overflow;
      body.style.paddingRight = paddingRight;
    };
  }, []);
}
