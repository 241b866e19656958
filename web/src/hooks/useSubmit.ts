import { useCallback, useRef, useState } from 'react';
import { errorText } from '../lib/errors';
import { useTranslation } from '../lib/i18n';
import { showError } from '../lib/notify';

/** A form's submission, as the form screens use it. */
export interface Submit {
  /** True while a submission runs, for the submit button's disabled state. */
  pending: boolean;
  /**
   * Runs `task` unless a submission is already under way (a second click or Enter before the
   * button is disabled does nothing). A failure is shown as a danger alert: our text for a known
   * error code, else the server's message, else "An error occurred". Never rejects.
   */
  run: (task: () => Promise<unknown>) => Promise<void>;
}

/** Options of useSubmit. */
export interface SubmitOptions {
  /**
   * Keeps the form locked after a success, for a write that must not be repeated while the
   * screen is left (creating a group): only a failure unlocks it.
   */
  lockAfterSuccess?: boolean;
}

/** Pending state, double-submit prevention and error alerts for a form that calls the API. */
export function useSubmit({ lockAfterSuccess = false }: SubmitOptions = {}): Submit {
  const { t } = useTranslation();
  const [pending, setPending] = useState(false);
  // State is only seen at the next render; the ref stops a second run started before it.
  const running = useRef(false);

  const run = useCallback(
    async (task: () => Promise<unknown>) => {
      if (running.current) return;
      running.current = true;
      setPending(true);
      let succeeded = false;
      try {
        await task();
        succeeded = true;
      } catch (error) {
        showError(errorText(t, error));
      } finally {
        if (!succeeded || !lockAfterSuccess) {
          running.current = false;
          setPending(false);
        }
      }
    },
    [t, lockAfterSuccess],
  );

  return { pending, run };
}
