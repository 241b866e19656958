import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { keys, storeWrittenMessage } from '../../api/queries';
import type { Message } from '@kith/common';
import { call } from '../../lib/api';
import { useTranslation } from '../../lib/i18n';
import { showAlert } from '../../lib/notify';

/** Delete (after ask_delete_message) and publish, for the author of a message. */
export function useMessageActions() {
  const client = useQueryClient();
  const { t } = useTranslation();

  const remove = useCallback(
    async (message: Message): Promise<boolean> => {
      if (!window.confirm(t('message.ask_delete_message'))) return false;
      try {
        await call('DELETE /api/messages/{id}', { params: { id: message.id } });
      } catch {
        showAlert('errors.generic', 'danger');
        return false;
      }
      if (message.group) void client.invalidateQueries({ queryKey: keys.feed(message.group.id) });
      if (message.parent) {
        // The parent's children say what became of the reply: gone, or a placeholder that keeps
        // its own replies (docs/api §10.3). Only a placeholder is fetched again.
        await client.invalidateQueries({ queryKey: keys.message(message.parent.id) });
        const parent = client.getQueryData<Message>(keys.message(message.parent.id));
        if (parent?.children.some((child) => child.id === message.id)) {
          await client.invalidateQueries({ queryKey: keys.message(message.id) });
        }
      }
      return true;
    },
    [client, t],
  );

  const publish = useCallback(
    async (message: Message) => {
      try {
        const answer = await call('PUT /api/messages/{id}', { params: { id: message.id }, body: { isInFront: true } });
        storeWrittenMessage(client, answer);
        if (message.group) void client.invalidateQueries({ queryKey: keys.feed(message.group.id) });
        showAlert('message.published');
      } catch {
        showAlert('errors.generic', 'danger');
      }
    },
    [client],
  );

  return { remove, publish };
}
