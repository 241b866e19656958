import { useCallback, useState } from 'react';
import type { Dispatch, SetStateAction } from 'react';

/**
 * State that goes back to `initial()` whenever `key` changes: a gesture's state when another image
 * is shown, the feed's revealed cards when another group opens. The reset happens while rendering,
 * as React advises instead of an effect, so the stale value is never drawn.
 */
export function useStateResetOn<K, T>(key: K, initial: () => T): [T, Dispatch<SetStateAction<T>>] {
  const [state, setState] = useState<{ key: K; value: T }>(() => ({ key, value: initial() }));
  const stale = !Object.is(state.key, key);
  const value = stale ? initial() : state.value;
  if (stale) setState({ key, value });
  // Stable like useState's setter. An update queued before the reset belongs to the previous key,
  // and the reset discards it.
  const set = useCallback<Dispatch<SetStateAction<T>>>(
    (next) =>
      setState((current) => ({ key: current.key, value: next instanceof Function ? next(current.value) : next })),
    [],
  );
  return [value, set];
}
