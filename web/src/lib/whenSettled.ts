import type { QueryClient } from '@tanstack/react-query';

/** How many more idle periods (each about 50 ms while the page waits) to wait for reads to end. */
const MAX_WAITS = 100;
/** Without requestIdleCallback (Safari): the first try after the first screen, then short waits. */
const FIRST_DELAY_MS = 2000;
const NEXT_DELAY_MS = 100;

/**
 * Runs `work` once the page is idle and none of `client`'s queries is reading. Idle alone is not
 * enough: the first screen's answers arrive apart (the user before the feed, more so on
 * PostgreSQL), and the page is idle between them, so a background read would join the first
 * screen's. After MAX_WAITS it runs anyway (a read that never ends must not hold it back for
 * ever). Answers the function that cancels it.
 */
export function whenIdleAndSettled(client: QueryClient, work: () => void): () => void {
  let cancel = () => {};
  let waits = 0;
  const attempt = () => {
    if (client.isFetching() > 0 && waits < MAX_WAITS) {
      waits += 1;
      schedule();
      return;
    }
    work();
  };
  const schedule = () => {
    if (typeof requestIdleCallback === 'function') {
      const handle = requestIdleCallback(attempt, { timeout: 5000 });
      cancel = () => cancelIdleCallback(handle);
    } else {
      const timer = setTimeout(attempt, waits === 0 ? FIRST_DELAY_MS : NEXT_DELAY_MS);
      cancel = () => clearTimeout(timer);
    }
  };
  schedule();
  return () => cancel();
}
