// One live stream per browser, shared by its tabs (issue 15). Every tab used to open its own
// /api/events stream, so a few page loads used up the server's budget of opens. Now the tabs of one
// key elect a leader with a Web Lock: the tab holding the lock reads the stream and passes every
// event to the others on a BroadcastChannel. The lock is held for the tab's life; when the leader
// tab closes, the browser grants it to a waiting tab, which opens the stream again with the id of
// the last event it was given, so the server replays what fell in between.
import { openEventStream, type StreamEvent, type StreamOptions } from '../../lib/events';

/** What the tabs say to each other on the channel. */
export type TabMessage =
  /** Leader → followers: one event of the stream, with its id (where a new leader resumes). */
  | { type: 'event'; event: StreamEvent }
  /** Leader → followers: the stream opened or was lost. */
  | { type: 'status'; connected: boolean }
  /** Leader → followers: the server refused the key; every tab signs out. */
  | { type: 'unauthorized' }
  /** New tab → leader: the only question a follower asks, "is the stream open?" */
  | { type: 'hello' };

export interface SharedStreamOptions extends Omit<StreamOptions, 'lastEventId' | 'resuming'> {
  /** The lock and channel name: one per key, so different accounts in one browser never mix. */
  name: string;
  /** In the tab that reads the stream only: whether it is open (that tab reports presence). */
  onLeaderStatus?(connected: boolean): void;
}

/** The event that tells every tab to reload what it shows (docs/api §11.4 `resync`). */
const RESYNC: StreamEvent = { id: null, event: 'resync', data: '{}' };

/** The lock and channel name of a key: a short hash, so the secret itself is not spread around. */
export function channelNameOf(apiKey: string): string {
  // FNV-1a: not for secrecy (the key sits in this origin's storage anyway), only to keep it out of sight.
  let hash = 0x811c9dc5;
  for (let i = 0; i < apiKey.length; i += 1) {
    hash ^= apiKey.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `kith-live-${hash.toString(16).padStart(8, '0')}`;
}

/** Whether this browser can share a stream among tabs (Web Locks and BroadcastChannel). */
export function canShareStream(): boolean {
  return typeof navigator !== 'undefined' && 'locks' in navigator && typeof BroadcastChannel !== 'undefined';
}

/**
 * Receives the live events in this tab, through the browser's one shared stream when it can, else
 * through a stream of its own. Returns a function that stops (and hands the stream over if this
 * tab held it).
 */
export function openSharedEventStream(options: SharedStreamOptions): () => void {
  if (!canShareStream()) {
    // Every tab reads its own stream, so each one leads.
    return openEventStream({
      ...options,
      onStatus: (value) => {
        options.onStatus?.(value);
        options.onLeaderStatus?.(value);
      },
    });
  }

  const channel = new BroadcastChannel(options.name);
  const cancelRequest = new AbortController();
  let stopped = false;
  let leading = false;
  let connected = false;
  let stopStream: (() => void) | null = null;
  /** The id of the last event this tab was given, whoever read it. */
  let lastEventId: string | null = null;
  /** Another tab held the stream before: taking over may have to catch up. */
  let heardLeader = false;
  let releaseLock = () => {};
  const tabClosing = new Promise<void>((resolve) => (releaseLock = resolve));

  const post = (message: TabMessage) => {
    if (!stopped) channel.postMessage(message);
  };

  channel.onmessage = (message: MessageEvent<TabMessage>) => {
    const data = message.data;
    if (data.type === 'hello') {
      if (leading) post({ type: 'status', connected });
      return;
    }
    heardLeader = true;
    if (data.type === 'event') {
      // Applied even when leading: the previous leader's last events may arrive after the lock did
      // (the replay may bring them again; applying an event twice changes nothing).
      if (data.event.id !== null) lastEventId = data.event.id;
      options.onEvent(data.event);
    } else if (data.type === 'unauthorized') {
      options.onUnauthorized?.();
    } else if (!leading) {
      options.onStatus?.(data.connected);
    }
  };

  const lead = async (): Promise<void> => {
    if (stopped) return;
    leading = true;
    stopStream = openEventStream({
      ...options,
      lastEventId,
      resuming: heardLeader,
      onEvent: (event) => {
        if (event.id !== null) lastEventId = event.id;
        post({ type: 'event', event });
        options.onEvent(event);
      },
      onResync: () => {
        post({ type: 'event', event: RESYNC });
        options.onResync?.();
      },
      onStatus: (value) => {
        connected = value;
        post({ type: 'status', connected: value });
        options.onStatus?.(value);
        options.onLeaderStatus?.(value);
      },
      onUnauthorized: () => {
        post({ type: 'unauthorized' });
        options.onUnauthorized?.();
      },
    });
    // The lock stays with this tab until it stops (navigation, sign-out, closing the tab).
    await tabClosing;
  };

  navigator.locks.request(options.name, { signal: cancelRequest.signal }, lead).catch(() => {
    // Cancelled before it was granted: this tab stopped while another one led.
  });
  // Asks the leader, if there is one, how the stream is; a first tab hears nothing and leads.
  post({ type: 'hello' });

  return () => {
    stopped = true;
    cancelRequest.abort();
    stopStream?.();
    releaseLock();
    channel.close();
  };
}
