/** A throttled function plus a way to drop its pending trailing call (on unmount). */
export type Throttled<A extends unknown[]> = ((...args: A) => void) & { cancel(): void };

/**
 * Runs `fn` at most once per `ms`: the first call runs at once (leading) and the last call made
 * during the wait runs when it ends (trailing), so a scroll handler reacts immediately and still
 * sees the final position.
 */
export function throttle<A extends unknown[]>(fn: (...args: A) => void, ms: number): Throttled<A> {
  let lastRun = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pending: A | null = null;

  function run(args: A): void {
    lastRun = Date.now();
    fn(...args);
  }

  function trailing(): void {
    timer = null;
    if (pending === null) return;
    const args = pending;
    pending = null;
    run(args);
  }

  const throttled = (...args: A): void => {
    // Clamped so a clock set backwards cannot stall the handler for longer than one wait.
    const remaining = Math.min(ms, ms - (Date.now() - lastRun));
    if (timer === null && remaining <= 0) {
      run(args);
      return;
    }
    pending = args;
    timer ??= setTimeout(trailing, remaining);
  };

  throttled.cancel = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    pending = null;
    lastRun = Number.NEGATIVE_INFINITY;
  };

  return throttled;
}
