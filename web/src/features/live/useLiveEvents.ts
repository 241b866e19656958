// Applies the live event stream to the query caches, so the feed, the open message and the
// notification badge move without reloading (docs/api §11.4). The stream is shared by the tabs of
// the browser (sharedStream.ts); each tab applies every event to its own caches.
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { type FeedData, keys } from '../../api/queries';
import type { FeedItem, FileObject, LiveEvent, Me, Message, MessagePreview, Notification } from '@kith/common';
import type { StreamEvent } from '../../lib/events';
import { clearSession, getApiKey, subscribeSession } from '../../lib/session';
import { firstStreamOpened, stopWatching } from '../../lib/eventClock';
import { showAlert } from '../../lib/notify';
import { applyReactions, summariesFor } from '../messages/reactionCache';
import { firstUnpinnedIndex } from '../pins/pinnedFirst';
import { deviceId, startPushPresence } from '../push/presence';
import { resetLiveStatus, setLiveConnected } from './liveStatus';
import { channelNameOf, openSharedEventStream } from './sharedStream';

/** Listeners for file changes (upload conversion progress), used by the composer. */
export const fileEvents = new EventTarget();

/**
 * Moves a card to the top of a cached feed (new post, or a thread that got a reply): below the
 * pinned cards, which stay first.
 */
export function putCardOnTop(data: FeedData | undefined, card: FeedItem): FeedData | undefined {
  if (data === undefined) return data;
  const pages = data.pages.map((page) => ({ ...page, messages: page.messages.filter((m) => m.id !== card.id) }));
  const existed =
    pages.reduce((n, page) => n + page.messages.length, 0) < data.pages.reduce((n, p) => n + p.messages.length, 0);
  const [first, ...rest] = pages;
  if (first === undefined) return data;
  const at = firstUnpinnedIndex(first.messages);
  return {
    ...data,
    pages: [
      {
        ...first,
        messages: [...first.messages.slice(0, at), card, ...first.messages.slice(at)],
        totalItems: first.totalItems + (existed ? 0 : 1),
      },
      ...rest,
    ],
  };
}

/** A cached message with the pin state of its newer card (`sortOrder` only while pinned). */
export function withPin(message: Message, card: Pick<MessagePreview, 'pinnedInGroup' | 'sortOrder'>): Message {
  const { sortOrder: _old, ...rest } = message;
  return {
    ...rest,
    pinnedInGroup: card.pinnedInGroup,
    ...(card.sortOrder === undefined ? {} : { sortOrder: card.sortOrder }),
  };
}

/**
 * Applies a live event to a cached list (a feed, the notifications). A read of that list still in
 * flight may have been answered before the event's write and would land after it, putting the list
 * back as it was (a first stream's catch-up starts such reads as events arrive): that read is
 * replaced by one made now, after the write.
 */
function applyToList<T>(
  client: QueryClient,
  queryKey: readonly unknown[],
  update: (data: T | undefined) => T | undefined,
) {
  const reading = client.isFetching({ queryKey, exact: true }) > 0;
  client.setQueryData<T>(queryKey, update);
  if (reading) void client.invalidateQueries({ queryKey, exact: true });
}

/** Reload what the screens show (the server's `resync`, or the catch-up of a first stream). */
const RESYNC: StreamEvent = { id: null, event: 'resync', data: '{}' };

function apply(client: QueryClient, event: StreamEvent): void {
  if (event.event === 'resync') {
    void client.invalidateQueries({ queryKey: keys.notifications });
    void client.invalidateQueries({ queryKey: keys.feeds });
    void client.invalidateQueries({ queryKey: keys.messages });
    return;
  }
  let live: LiveEvent;
  try {
    // The server writes each event's data with the type its name has in common/src/api/events.ts.
    live = { event: event.event, data: JSON.parse(event.data) as unknown } as LiveEvent;
  } catch {
    return;
  }
  switch (live.event) {
    case 'notification': {
      const notification = live.data;
      applyToList<Notification[]>(client, keys.notifications, (list) =>
        list === undefined ? list : [notification, ...list.filter((n) => n.id !== notification.id)],
      );
      const group = notification.fromGroup;
      // The card of the thread gets its "something new" mark from the notification list.
      if (group === null || notification.type === 'new_message' || notification.type === 'new_comment') break;
      // Another member renamed, joined or left a group: its member list and name are read again,
      // and after a rename the user's group list (the navigation) and open messages (breadcrumbs)
      // too. Rare events, so a re-read costs less code than rewriting each cache.
      void client.invalidateQueries({ queryKey: keys.group(group.id) });
      if (notification.type === 'group_name_change') {
        void client.invalidateQueries({ queryKey: keys.me });
        void client.invalidateQueries({ queryKey: keys.messages });
      }
      break;
    }
    case 'message': {
      // A live card is whole (never truncated), and nothing in it is unread by this user yet.
      const card: FeedItem = { ...live.data, truncated: false, unread: false };
      applyToList<FeedData>(client, keys.feed(card.group.id), (feed) => putCardOnTop(feed, card));
      // The all-groups feed shows it too (the server sends only events of the user's groups).
      applyToList<FeedData>(client, keys.allFeed, (feed) => putCardOnTop(feed, card));
      break;
    }
    case 'pin': {
      // A member pinned or unpinned a message: the feed's order changed, and the message's mark.
      const card = live.data;
      void client.invalidateQueries({ queryKey: keys.feed(card.group.id) });
      client.setQueryData<Message>(keys.message(card.id), (message) =>
        message === undefined ? message : withPin(message, card),
      );
      break;
    }
    case 'comment': {
      const comment = live.data;
      // The thread's root moved up with a new activity date and may have a new comment count.
      void client.invalidateQueries({ queryKey: keys.feed(comment.group.id) });
      if (comment.parent !== null) void client.invalidateQueries({ queryKey: keys.message(comment.parent.id) });
      break;
    }
    case 'reactions': {
      // The same data goes to every member: this user's own reactions are found by their id.
      const me = client.getQueryData<Me>(keys.me);
      applyReactions(client, live.data.messageId, summariesFor(live.data, me?.id));
      break;
    }
    case 'file': {
      const file = live.data;
      client.setQueryData(keys.file(file.id), file);
      fileEvents.dispatchEvent(new CustomEvent<FileObject>('file', { detail: file }));
      break;
    }
    case 'export': {
      // An export of this user is ready or failed: the "Your data" tab reads its list again, and
      // whatever screen is open says that it is ready.
      void client.invalidateQueries({ queryKey: keys.exports });
      if (live.data.state === 'ready') showAlert('data.ready_alert', 'info');
      break;
    }
    case 'resync': // answered above, before its data is read
    case 'closed': // the stream's own business (lib/events.ts waits as told)
      break;
  }
}

/**
 * Keeping the connection a little after the last user unmounts: the app remounts the signed-in
 * shell on every navigation (the error boundary is keyed by path), and a lazily loaded screen may
 * hold the new shell back while its code loads. Without this, each click reopened the stream.
 */
export const RELEASE_AFTER_MS = 5000;

/** The tab's live connection, shared by whatever is mounted that uses it. */
interface Connection {
  apiKey: string;
  client: QueryClient;
  users: number;
  release: ReturnType<typeof setTimeout> | null;
  stop(): void;
}

let connection: Connection | null = null;

function closeConnection(): void {
  const closing = connection;
  if (closing === null) return;
  connection = null;
  if (closing.release !== null) clearTimeout(closing.release);
  closing.stop();
  resetLiveStatus();
}

function connect(apiKey: string, client: QueryClient): Connection {
  setLiveConnected(false);
  const name = channelNameOf(apiKey);
  const presence = startPushPresence(name, apiKey, client);
  let caughtUp = false;
  const stop = openSharedEventStream({
    name,
    device: deviceId(),
    getKey: () => apiKey,
    onEvent: (event) => apply(client, event),
    onResync: () => apply(client, RESYNC),
    // A first stream replays nothing, so what the screens read before it opened (the feed of this
    // page load, say) misses whatever was posted in between. The tab reading the stream knows from
    // the ids whether anything was (lib/eventClock.ts) and reads the screens again only then;
    // another tab, told only that the stream is open, reads them again once. Later reopenings
    // resume with Last-Event-ID, or resync when they cannot.
    onOpen: (eventId) => {
      if (caughtUp) return;
      caughtUp = true;
      firstStreamOpened(eventId, () => apply(client, RESYNC));
    },
    onStatus: (connected) => {
      setLiveConnected(connected);
      if (connected && !caughtUp) {
        caughtUp = true;
        apply(client, RESYNC);
      }
    },
    onLeaderStatus: presence.setReporting,
    // As for any API call: a key that stopped working sends the user back to login (unless this
    // tab has a new key by now, from a reset made here).
    onUnauthorized: () => {
      if (getApiKey() === apiKey) clearSession();
    },
  });
  // Signing out (or a new key) ends it at once, even while it is only being kept for a remount.
  const unsubscribe = subscribeSession(() => {
    if (getApiKey() !== apiKey) closeConnection();
  });
  return {
    apiKey,
    client,
    users: 0,
    release: null,
    stop: () => {
      unsubscribe();
      presence.stop();
      stop();
      stopWatching();
    },
  };
}

/** Holds the tab's connection for `apiKey`, opening it if needed; returns the function that lets go. */
function holdConnection(apiKey: string, client: QueryClient): () => void {
  if (connection !== null && (connection.apiKey !== apiKey || connection.client !== client)) closeConnection();
  connection ??= connect(apiKey, client);
  const used = connection;
  if (used.release !== null) clearTimeout(used.release);
  used.release = null;
  used.users += 1;
  return () => {
    used.users -= 1;
    if (used.users > 0 || connection !== used) return;
    // Signed out, or another key: nothing to keep.
    if (getApiKey() !== used.apiKey) {
      closeConnection();
      return;
    }
    used.release = setTimeout(() => {
      if (connection === used && used.users === 0) closeConnection();
    }, RELEASE_AFTER_MS);
  };
}

/** Receives the live events while `apiKey` is signed in (null: not yet, or signed out). */
export function useLiveEvents(apiKey: string | null): void {
  const client = useQueryClient();
  useEffect(() => {
    if (apiKey === null) return;
    return holdConnection(apiKey, client);
  }, [client, apiKey]);
}
