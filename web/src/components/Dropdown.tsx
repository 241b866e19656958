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

/** A button with a menu that closes on a click elsewhere, on Escape, and after choosing. */
export function Dropdown({ label, ariaLabel, align = 'left', buttonClassName, children }: DropdownProps) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const id = useId();

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
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
