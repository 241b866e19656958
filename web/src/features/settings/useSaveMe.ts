import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { EndpointBody, Me } from '@kith/common';
import { keys } from '../../api/queries';
import { useSubmit } from '../../hooks/useSubmit';
import { call } from '../../lib/api';
import { showAlert } from '../../lib/notify';

/** The body of a settings change. */
export type MeChanges = EndpointBody<'PUT /api/users/{id}'>;

/**
 * Saves a change of the signed-in account. The answer is the Me object after the change: it
 * replaces the cached one, so the navigation, the language and the theme follow at once. A
 * refused save shows the server's text (useSubmit) and changes nothing here.
 */
export function useSaveMe(userId: string) {
  const client = useQueryClient();
  const { pending, run } = useSubmit();
  const save = useCallback(
    (changes: MeChanges | (() => Promise<MeChanges>), after?: (me: Me) => Promise<void> | void) =>
      run(async () => {
        // A function prepares the body first (the profile uploads a new picture), inside the same
        // pending state and error handling as the save itself.
        const body = typeof changes === 'function' ? await changes() : changes;
        const me = await call('PUT /api/users/{id}', { params: { id: userId }, body });
        client.setQueryData(keys.me, me);
        await after?.(me);
        // Shown after `after`, so a new language shows the text already translated.
        showAlert('settings.updated');
      }),
    [client, run, userId],
  );
  return { pending, save };
}
