import { useCallback, useSyncExternalStore } from 'react';
import { useTranslation } from '../lib/i18n';
import { formatRelativeTime, relativeTime } from '../lib/time';

/** How often the shared clock moves on while something shows a relative time. */
export const CLOCK_TICK_MS = 30_000;

// One clock for every relative time on the page, read through useSyncExternalStore: reading
// Date.now() while rendering would make renders impure, and the texts would only move on when
// something else re-rendered them.
let now = Date.now();
let timer: ReturnType<typeof setInterval> | null = null;
const listeners = new Set<() => void>();

function tick(): void {
  now = Date.now();
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  timer ??= setInterval(tick, CLOCK_TICK_MS);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  };
}

function getSnapshot(): number {
  // Nobody watched the clock for a while (or the system clock was set): catch up before the first
  // render reads it. Within one render the value then stays the same, as React requires.
  if (timer === null && Math.abs(Date.now() - now) >= CLOCK_TICK_MS) now = Date.now();
  return now;
}

/** The current time in milliseconds, moving on every CLOCK_TICK_MS while the component is mounted. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, getSnapshot);
}

/**
 * Formats server timestamps (epoch seconds) as "just now", "5 minutes", "3 hours" or a date in the
 * interface language, kept up to date by the shared clock.
 */
export function useRelativeTime(): (epochSeconds: number) => string {
  const { t, i18n } = useTranslation();
  const time = useNow();
  const lang = i18n.language;
  return useCallback(
    (epochSeconds: number) => formatRelativeTime(relativeTime(epochSeconds, time), t, lang),
    [t, time, lang],
  );
}
