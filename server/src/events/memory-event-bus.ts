import type { EventBus, KithEvent } from './event-bus.js';

/** The embedded event bus: listeners in this process. */
export class MemoryEventBus implements EventBus {
  private readonly listeners = new Set<(event: KithEvent) => void>();

  publish(event: KithEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A broken listener must not stop the others or the publisher.
      }
    }
  }

  /** Listens to every event; returns a function that stops listening. */
  subscribe(listener: (event: KithEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
