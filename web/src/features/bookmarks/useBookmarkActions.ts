import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { Bookmark, MessagePreview } from '@kith/common';
import { keys } from '../../api/queries';
import { call } from '../../lib/api';
import { showAlert } from '../../lib/notify';

/** The bookmark of a message in a list, if any. */
export function bookmarkOf(list: readonly Bookmark[] | undefined, messageId: string): Bookmark | undefined {
  return list?.find((bookmark) => bookmark.message.id === messageId);
}

/** A bookmark whose message came as a card (`?expand=message`), not a bare reference. */
export function hasCard(bookmark: Bookmark): bookmark is Bookmark & { message: MessagePreview } {
  return 'data' in bookmark.message;
}

/**
 * Adding and removing bookmarks (product spec §4): a removal leaves the list at once and comes back
 * with an error alert if the server refuses; an addition waits for the server and then puts the
 * bookmark it answered in the list.
 */
export function useBookmarkActions() {
  const client = useQueryClient();

  const add = useCallback(
    async (messageId: string): Promise<void> => {
      let created: Bookmark;
      try {
        created = await call('POST /api/bookmarks', { body: { message_id: messageId } });
      } catch {
        showAlert('errors.generic', 'danger');
        return;
      }
      client.setQueryData<Bookmark[]>(keys.bookmarks, (list = []) => [
        // Newest first, like the server's list; the server answers the existing one for a repeat.
        created,
        ...list.filter((bookmark) => bookmark.id !== created.id),
      ]);
      // The answer names the message by reference; the grid needs its card, fetched in the background.
      void client.invalidateQueries({ queryKey: keys.bookmarks });
      showAlert('bookmarks.added');
    },
    [client],
  );

  const remove = useCallback(
    async (bookmark: Bookmark): Promise<void> => {
      await client.cancelQueries({ queryKey: keys.bookmarks });
      const before = client.getQueryData<Bookmark[]>(keys.bookmarks);
      client.setQueryData<Bookmark[]>(keys.bookmarks, (list = []) => list.filter((item) => item.id !== bookmark.id));
      try {
        await call('DELETE /api/bookmarks/{id}', { params: { id: bookmark.id } });
      } catch {
        // Put it back where it was: the list as it stood, with anything added meanwhile kept.
        client.setQueryData<Bookmark[]>(keys.bookmarks, (list = []) =>
          list.some((item) => item.id === bookmark.id) ? list : restore(before ?? [], list, bookmark),
        );
        showAlert('errors.generic', 'danger');
        return;
      }
      showAlert('bookmarks.removed');
    },
    [client],
  );

  return { add, remove };
}

/** `current` with `bookmark` back at the place it had in `before`. */
function restore(before: readonly Bookmark[], current: readonly Bookmark[], bookmark: Bookmark): Bookmark[] {
  const index = before.findIndex((item) => item.id === bookmark.id);
  const next = [...current];
  // Its old neighbour above decides the place; without one, it goes first.
  const above = index > 0 ? before[index - 1] : undefined;
  const at = above === undefined ? 0 : next.findIndex((item) => item.id === above.id) + 1;
  next.splice(at, 0, bookmark);
  return next;
}
