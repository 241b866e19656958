// The hand-off between the page's small early script (web/src/firstScreenReads.ts), which starts a
// group page's first reads while the app's bundle still downloads and evaluates, and the app,
// which takes those answers over as if its own calls had sent the requests (api.ts `send`): the
// same error handling, the same `Kith-Event-Id` bookkeeping. Anything that does not match exactly
// (another page, another key, another URL) or that failed is left alone, and the app asks itself.

/** What the early script leaves on `window.kithEarlyReads` for the app. */
export interface EarlyReads {
  /** The route path the reads are for, without the base path (as `startFirstScreen` computes it). */
  path: string;
  /** The API key they were sent with. */
  key: string;
  /** Each request's answer on its way, by URL as `call` would fetch it; null when the request failed. */
  answers: Record<string, Promise<Response | null>>;
  /** Whether every answer has arrived, body and all, none a server error (set by the early script then). */
  arrived: boolean;
}

/** The early script's answers, taken over by the app. */
export interface TakenReads {
  answers: Map<string, Promise<Response | null>>;
  /** Whether they have all arrived by now, none a server error: they reach the caches within moments. */
  arrived(): boolean;
}

declare global {
  interface Window {
    /** Undefined until either side runs; null when there is nothing (left) to take (a late early script then starts nothing). */
    kithEarlyReads?: EarlyReads | null;
  }
}

/** The answers on offer to `send` while `offerEarlyAnswers` runs, each to be taken once. */
let offered: Map<string, Promise<Response | null>> | null = null;

/**
 * Takes over, once per page, what the early script started: its answers if they are for `path` and
 * were sent with `key`, else null. The hand-off is closed either way, so a late early script starts
 * nothing and nothing lingers for later screens.
 */
export function takeEarlyReads(path: string, key: string | null): TakenReads | null {
  const early = window.kithEarlyReads;
  window.kithEarlyReads = null;
  if (early === undefined || early === null) return null;
  const answers = new Map(Object.entries(early.answers));
  if (early.path === path && early.key === key) return { answers, arrived: () => early.arrived };
  drop(answers);
  return null;
}

/**
 * Runs `start`, which starts the first screen's reads, with `answers` on offer: a GET of one of
 * their URLs sent synchronously within `start` takes that answer instead of fetching. Answers no
 * read took are dropped, so none can be used later, out of date.
 */
export function offerEarlyAnswers(answers: Map<string, Promise<Response | null>> | null, start: () => void): void {
  offered = answers;
  try {
    start();
  } finally {
    offered = null;
    if (answers !== null) drop(answers);
  }
}

/** The answer on offer for `url`, taken (removed) so that it is used at most once; undefined when none is. */
export function takeEarlyAnswer(url: string): Promise<Response | null> | undefined {
  const answer = offered?.get(url);
  offered?.delete(url);
  return answer;
}

/** Lets the connections of unused answers go (their bodies are never read). */
function drop(answers: Map<string, Promise<Response | null>>): void {
  for (const answer of answers.values())
    void answer.then((response) => response?.body?.cancel()).catch(() => undefined);
  answers.clear();
}
