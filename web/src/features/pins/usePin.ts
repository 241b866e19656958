import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { Message } from '@kith/common';
import { keys, storeWrittenMessage } from '../../api/queries';
import { call } from '../../lib/api';
import { errorText } from '../../lib/errors';
import { useTranslation } from '../../lib/i18n';
import { showAlert, showError } from '../../lib/notify';

/**
 * Pins or unpins a message in its group (PUT with only `pinnedInGroup`, which any member may send,
 * issue 20). The message is updated from the answer and the group's feed read again, since the pin
 * reorders it; other members' feeds follow through the `pin` live event.
 */
export function usePin() {
  const client = useQueryClient();
  const { t } = useTranslation();
  return useCallback(
    async (message: Message, pinned: boolean): Promise<void> => {
      try {
        const answer = await call('PUT /api/messages/{id}', {
          params: { id: message.id },
          body: { pinnedInGroup: pinned },
        });
        storeWrittenMessage(client, answer);
        if (message.group) void client.invalidateQueries({ queryKey: keys.feed(message.group.id) });
        showAlert(pinned ? 'pins.pinned_done' : 'pins.unpinned_done');
      } catch (error) {
        // The limit of pins says how to go on (unpin one first); other failures say what they can.
        showError(errorText(t, error));
      }
    },
    [client, t],
  );
}
