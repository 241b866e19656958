import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { keys } from '../../api/queries';
import type { Notification } from '@kith/common';
import { call } from '../../lib/api';
import { showAlert } from '../../lib/notify';

/**
 * Read some, read all (one call), remove some: applied to the list at once, then on the server
 * (one call per notification, as the API reads and deletes them one by one).
 */
export function useNotificationActions() {
  const client = useQueryClient();
  const update = useCallback(
    (change: (list: Notification[]) => Notification[]) =>
      client.setQueryData<Notification[]>(keys.notifications, (list) => (list === undefined ? list : change(list))),
    [client],
  );
  const onError = useCallback(() => {
    showAlert('errors.generic', 'danger');
    void client.invalidateQueries({ queryKey: keys.notifications });
  }, [client]);

  const markRead = useCallback(
    (ids: string[]) => {
      if (ids.length === 0) return;
      update((list) => list.map((n) => (ids.includes(n.id) ? { ...n, read: true } : n)));
      Promise.all(ids.map((id) => call('PUT /api/notifications/{id}', { params: { id }, body: { read: true } }))).catch(
        onError,
      );
    },
    [update, onError],
  );

  const markAllRead = useCallback(() => {
    update((list) => list.map((n) => ({ ...n, read: true })));
    // `before` keeps a notification that arrives meanwhile unread (docs/api §11.2).
    call('POST /api/me/notifications/read-all', { body: { before: Math.floor(Date.now() / 1000) } }).catch(onError);
  }, [update, onError]);

  const remove = useCallback(
    (ids: string[]) => {
      update((list) => list.filter((n) => !ids.includes(n.id)));
      Promise.all(ids.map((id) => call('DELETE /api/notifications/{id}', { params: { id } }))).catch(onError);
    },
    [update, onError],
  );

  return { markRead, markAllRead, remove };
}
