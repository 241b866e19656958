// Applies the live event stream to the query caches, so the feed, the open message and the
// notification badge move without reloading (contract §11.4). The stream is shared by the tabs of
// the browser (sharedStream.ts); each tab applies every event to its own caches.
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { type FeedData, keys } from '../../api/queries';
import type { FileObject, MessagePreview, Notification, Ref } from '../../api/types';
import type { StreamEvent } from '../../lib/events';
import { clearSession, getApiKey } from '../../lib/session';
import { resetLiveStatus, setLiveConnected } from './liveStatus';
import { channelNameOf, openSharedEventStream } from './sharedStream';

type CommentEvent = MessagePreview & { parent: Ref; lineage: string[] };

/** Listeners for file changes (upload conversion progress), used by the composer. */
export const fileEvents = new EventTarget();

/** Moves a card to the top of a cached feed (new post, or a thread that got a reply). */
export function putCardOnTop(data: FeedData | undefined, card: MessagePreview): FeedData | undefined {
  if (data === undefined) return data;
  const pages = data.pages.map((page) => ({ ...page, messages: page.messages.filter((m) => m.id !== card.id) }));
  const existed =
    pages.reduce((n, page) => n + page.messages.length, 0) < data.pages.reduce((n, p) => n + p.messages.length, 0);
  const [first, ...rest] = pages;
  if (first === undefined) return data;
  return {
    ...data,
    pages: [
      { ...first, messages: [card, ...first.messages], totalItems: first.totalItems + (existed ? 0 : 1) },
      ...rest,
    ],
  };
}

function apply(client: QueryClient, event: StreamEvent): void {
  if (event.event === 'resync') {
    void client.invalidateQueries({ queryKey: keys.notifications });
    void client.invalidateQueries({ queryKey: keys.feeds });
    void client.invalidateQueries({ queryKey: keys.messages });
    return;
  }
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    return;
  }
  switch (event.event) {
    case 'notification': {
      const notification = data as Notification;
      client.setQueryData<Notification[]>(keys.notifications, (list) =>
        list === undefined ? list : [notification, ...list.filter((n) => n.id !== notification.id)],
      );
      // The card of the thread gets its "something new" mark from the notification list.
      break;
    }
    case 'message': {
      const card = data as MessagePreview;
      const groupId = card.group?.id;
      if (groupId !== undefined) client.setQueryData<FeedData>(keys.feed(groupId), (feed) => putCardOnTop(feed, card));
      break;
    }
    case 'comment': {
      const comment = data as CommentEvent;
      // The thread's root moved up with a new activity date and may have a new comment count.
      if (comment.group?.id !== undefined) void client.invalidateQueries({ queryKey: keys.feed(comment.group.id) });
      void client.invalidateQueries({ queryKey: keys.message(comment.parent.id) });
      break;
    }
    case 'file': {
      const file = data as FileObject;
      client.setQueryData(keys.file(file.id), file);
      fileEvents.dispatchEvent(new CustomEvent<FileObject>('file', { detail: file }));
      break;
    }
  }
}

/** Receives the live events while `apiKey` is signed in (null: not yet, or signed out); one per app. */
export function useLiveEvents(apiKey: string | null): void {
  const client = useQueryClient();
  useEffect(() => {
    if (apiKey === null) return;
    setLiveConnected(false);
    const stop = openSharedEventStream({
      name: channelNameOf(apiKey),
      getKey: () => apiKey,
      onEvent: (event) => apply(client, event),
      onResync: () => apply(client, { id: null, event: 'resync', data: '{}' }),
      onStatus: setLiveConnected,
      // As for any API call: a key that stopped working sends the user back to login (unless this
      // tab has a new key by now, from a reset made here).
      onUnauthorized: () => {
        if (getApiKey() === apiKey) clearSession();
      },
    });
    return () => {
      stop();
      resetLiveStatus();
    };
  }, [client, apiKey]);
}
