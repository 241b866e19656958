// Whether the screens may have missed a live event before the first stream opened (docs/api §11.4,
// `Kith-Event-Id`). Every answer to a signed-in GET carries the id of the server's newest live event
// as its read began, and the stream's answer the id its live events start after. A first stream has
// nothing to replay, so what was read before it is complete only if no event came in between: the
// oldest answer's id equals the stream's. Otherwise, or for an answer read before the stream that
// lands after it, the screens read again (the live layer's `resync`). On a quiet instance a page
// load then costs no second read of its feed.

/** The header of answers and of the stream (server: features/auth/authenticate.ts). */
export const EVENT_ID_HEADER = 'Kith-Event-Id';

const ID = /^\d{1,16}$/;

/** The lowest id of the answers this page has read (its oldest data), null before any. */
let oldestRead: number | null = null;
/** After a first stream opened at `from`: what to do if an answer read before it still lands. */
let watch: { from: number; onGap: () => void } | null = null;

function parse(header: string | null): number | null {
  return header !== null && ID.test(header) ? Number(header) : null;
}

/** Notes the `Kith-Event-Id` of an answer (api.ts, for every answer). */
export function noteAnswerEventId(header: string | null): void {
  const id = parse(header);
  if (id === null) return;
  if (oldestRead === null || id < oldestRead) oldestRead = id;
  if (watch !== null && id < watch.from) {
    const { onGap } = watch;
    watch = null;
    onGap();
  }
}

/**
 * A connection's first stream opened, its live events starting after `header`: calls `onGap` now if
 * the screens may hold data older than that, or later if such an answer is still on its way.
 */
export function firstStreamOpened(header: string | null, onGap: () => void): void {
  const from = parse(header);
  if (from === null || (oldestRead !== null && oldestRead < from)) {
    watch = null;
    onGap();
    return;
  }
  watch = { from, onGap };
}

/** The connection ended: a late answer is the next connection's business. */
export function stopWatching(): void {
  watch = null;
}

/** Forgets everything (tests). */
export function resetEventClock(): void {
  oldestRead = null;
  watch = null;
}
