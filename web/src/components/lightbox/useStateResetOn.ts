import { useCallback, useState } from 'react';

/**
 * State that goes back to `initial` whenever `key` changes, such as a gesture's state when another
 * image is shown. The reset happens while rendering, as React advises instead of an effect, so the
 * stale value is never drawn.
 */
export function useStateResetOn<K, T>(key: K, initial: T): [T, (value: T) => void] {
  const [state, setState] = useState<{ key: K; value: T }>({ key, value: initial });
  const stale = !Object.is(state.key, key);
  if (stale) setState({ key, value: initial });
  const set = useCallback((value: T) => setState({ key, value }), [key]);
  return [stale ? initial : state.value, set];
}
