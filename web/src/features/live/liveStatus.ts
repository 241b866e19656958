// Whether this tab should say it is offline: the browser says so, or the live stream (this tab's
// or the leader tab's) has been down for longer than a reconnection normally takes. Without a sign,
// a user whose updates had stopped could not tell a quiet group from a broken connection.
import { useSyncExternalStore } from 'react';
import { OFFLINE_AFTER_MS } from '../../lib/events';

const listeners = new Set<() => void>();
let connected = false;
/** The stream has been down for OFFLINE_AFTER_MS. */
let late = false;
let timer: ReturnType<typeof setTimeout> | null = null;
let offline = false;

function browserOffline(): boolean {
  return typeof navigator !== 'undefined' && navigator.onLine === false;
}

function update(): void {
  const next = browserOffline() || (!connected && late);
  if (next === offline) return;
  offline = next;
  for (const listener of listeners) listener();
}

/** Records that the stream opened (true) or was lost (false); the loss shows after OFFLINE_AFTER_MS. */
export function setLiveConnected(value: boolean): void {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  connected = value;
  late = false;
  if (!value) {
    timer = setTimeout(() => {
      timer = null;
      late = true;
      update();
    }, OFFLINE_AFTER_MS);
  }
  update();
}

/** Forgets the stream (signed out): nothing to show until the next one starts. */
export function resetLiveStatus(): void {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  connected = false;
  late = false;
  update();
}

/** Whether live updates are offline now. */
export function isLiveOffline(): boolean {
  return offline;
}

/** Listens to changes of `isLiveOffline`, the browser's online and offline events included. */
export function subscribeLiveStatus(listener: () => void): () => void {
  if (listeners.size === 0) {
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
  }
  listeners.add(listener);
  // The browser may have gone offline while nobody listened.
  update();
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
    }
  };
}

/** True while live updates are offline (for the indicator in the signed-in shell). */
export function useLiveOffline(): boolean {
  return useSyncExternalStore(subscribeLiveStatus, isLiveOffline);
}
