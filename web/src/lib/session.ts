// The signed-in state is the API key alone: it is kept in local storage (wrapped like every entry)
// and sent as X-AUTH-TOKEN on every call. Logout clears all local storage (product spec §4) but the
// device's language (lib/language.ts).
import { LANGUAGE_KEY } from './language';
import { storage } from './storage';

const KEY = 'apiKey';
const listeners = new Set<() => void>();
let apiKey: string | null = storage.get<string>(KEY);

function emit(): void {
  for (const listener of listeners) listener();
}

/** The current API key, or null for a visitor. */
export function getApiKey(): string | null {
  return apiKey;
}

/** Stores a key returned by login, signup, new-password or reset-api-key. */
export function setApiKey(key: string): void {
  apiKey = key;
  storage.set(KEY, key);
  emit();
}

/** Forgets the key and everything the app kept locally. */
export function clearSession(): void {
  apiKey = null;
  storage.clear([LANGUAGE_KEY]);
  emit();
}

/** For useSyncExternalStore. */
export function subscribeSession(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
