/** Time source of the app. Tests pass their own to control "now" (throttle windows, key expiry). */
export interface Clock {
  /** Now, in Unix milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Unix seconds for the API (docs/api §1.4) from a stored millisecond time. */
export function toSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}
