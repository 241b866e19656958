import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import styles from './Dropdown.module.css';

interface DropdownProps {
  label: ReactNode;
  /** Accessible name of the button when the label is an icon. */
  ariaLabel?: string;
  align?: 'left' | 'right';
  buttonClassName?: string;
  children: (close: () => void) => ReactNode;
}

/**
 * A button with a menu that closes on a click elsewhere, on Escape, and after choosing. Escape also
 * gives the focus back to the button, so a keyboard user is not left on the page's start.
 */
export function Dropdown({ label, ariaLabel, align = 'left', buttonClassName, children }: DropdownProps) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const id = useId();

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  return (
    <div className={styles.root} ref={root}>
      <button
        ref={button}
        type="button"
        className={buttonClassName ?? styles.button}
        aria-label={ariaLabel}
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen((value) => !value)}
      >
        {label}
      </button>
      {open && (
        <div id={id} className={`${styles.menu} ${align === 'right' ? styles.right : ''}`}>
          {children(() => setOpen(false))}
        </div>
      )}
    </div>
  );
}
