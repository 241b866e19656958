import { LIMITS } from '@kith/common';

/**
 * Transient alerts (product spec): success style by default, gone after 5000 ms; a fatal request
 * failure shows a danger alert. A tiny external store so any code (query callbacks included) can
 * show one and the <Alerts> component reads it with useSyncExternalStore.
 */

export type AlertStyle = 'success' | 'danger' | 'info' | 'warning';

/** One visible alert. */
export interface Alert {
  id: number;
  text: string;
  style: AlertStyle;
}

/** The store's interface, as returned by createAlertStore. */
export interface AlertStore {
  // Function properties, not methods: they close over the store and are safe to pass around unbound.
  show: (text: string, style?: AlertStyle) => number;
  dismiss: (id: number) => void;
  subscribe: (listener: () => void) => () => void;
  getSnapshot: () => readonly Alert[];
}

/** Creates an alert store whose alerts remove themselves after `durationMs` (Infinity keeps them). */
export function createAlertStore(durationMs: number = LIMITS.alertMs): AlertStore {
  let visible: readonly Alert[] = [];
  let nextId = 1;
  const timers = new Map<number, ReturnType<typeof setTimeout>>();
  const listeners = new Set<() => void>();

  function publish(next: readonly Alert[]): void {
    // A new array only on change: useSyncExternalStore re-renders when the snapshot's identity changes.
    visible = next;
    for (const listener of [...listeners]) listener();
  }

  function schedule(id: number): void {
    const running = timers.get(id);
    if (running !== undefined) clearTimeout(running);
    if (!Number.isFinite(durationMs)) return;
    timers.set(
      id,
      setTimeout(() => dismiss(id), Math.max(0, durationMs)),
    );
  }

  function dismiss(id: number): void {
    const timer = timers.get(id);
    if (timer !== undefined) clearTimeout(timer);
    timers.delete(id);
    if (!visible.some((a) => a.id === id)) return;
    publish(visible.filter((a) => a.id !== id));
  }

  function show(text: string, style: AlertStyle = 'success'): number {
    // Repeated failures (say, every retry of a request) must not pile up the same line.
    const same = visible.find((a) => a.text === text);
    if (same !== undefined) {
      if (same.style !== style) publish(visible.map((a) => (a.id === same.id ? { ...a, style } : a)));
      schedule(same.id);
      return same.id;
    }
    const id = nextId++;
    publish([...visible, { id, text, style }]);
    schedule(id);
    return id;
  }

  return {
    show,
    dismiss,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    getSnapshot: () => visible,
  };
}

/** The app's single alert store. */
export const alerts = createAlertStore();
