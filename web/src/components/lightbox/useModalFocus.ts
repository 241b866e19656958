import { useCallback, useEffect } from 'react';
import type { KeyboardEvent as ReactKeyboardEvent, RefObject } from 'react';

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * Keeps keyboard focus inside a modal dialog: moves it in on open and back to where it was on
 * close, pulls it back when it escapes, and returns the Tab handler that cycles through the
 * dialog's controls.
 */
export function useModalFocus(dialogRef: RefObject<HTMLElement | null>): (event: ReactKeyboardEvent) => void {
  useEffect(() => {
    const dialog = dialogRef.current;
    const previous = document.activeElement;
    dialog?.focus({ preventScroll: true });
    const onFocusIn = (event: FocusEvent) => {
      if (dialog && event.target instanceof Node && !dialog.contains(event.target)) {
        dialog.focus({ preventScroll: true });
      }
    };
    document.addEventListener('focusin', onFocusIn);
    return () => {
      document.removeEventListener('focusin', onFocusIn);
      if (previous instanceof HTMLElement && previous.isConnected) previous.focus({ preventScroll: true });
    };
  }, [dialogRef]);

  // A button that gets disabled while focused (next at the last image, zoom out at 1×) drops focus
  // to the page; catch it after every render so the keys keep working.
  useEffect(() => {
    const dialog = dialogRef.current;
    const active = document.activeElement;
    if (!dialog) return;
    if (!active || active === document.body || (active instanceof HTMLButtonElement && active.disabled)) {
      dialog.focus({ preventScroll: true });
    }
  });

  return useCallback(
    (event: ReactKeyboardEvent) => {
      const dialog = dialogRef.current;
      if (!dialog) return;
      const focusable = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
      const first = focusable[0];
      const last = focusable[focusable.length - 1];
      const active = document.activeElement;
      const outside = !active || !dialog.contains(active);
      if (!first || !last) {
        event.preventDefault();
        dialog.focus();
      } else if (event.shiftKey && (active === first || active === dialog || outside)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && (active === last || outside)) {
        event.preventDefault();
        first.focus();
      }
    },
    [dialogRef],
  );
}
