import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from '../../lib/i18n';
import { searchPath } from './query';
import styles from './SearchBox.module.css';

const icon = (
  <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2.4">
    <circle cx="10.5" cy="10.5" r="6.5" />
    <path d="m15.5 15.5 5 5" strokeLinecap="round" />
  </svg>
);

/**
 * The navigation's search of the current group (product spec §2). On a phone the field hides
 * behind an icon button and opens as a bar under the navigation.
 */
export function SearchBox({ groupId }: { groupId: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const id = useId();
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  // Opening the phone's bar puts the cursor in it (the field is hidden until then).
  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const path = searchPath(groupId, text);
    if (path === null) return;
    setOpen(false);
    setText('');
    void navigate(path);
  };

  return (
    <>
      <button
        type="button"
        className={styles.toggle}
        aria-expanded={open}
        aria-controls={id}
        aria-label={t('search.open')}
        onClick={() => setOpen(!open)}
      >
        {icon}
      </button>
      <form id={id} role="search" className={open ? `${styles.form} ${styles.open}` : styles.form} onSubmit={submit}>
        <input
          ref={input}
          type="search"
          className={styles.input}
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => event.key === 'Escape' && setOpen(false)}
          aria-label={t('search.field')}
          placeholder={t('search.placeholder_short')}
        />
        <button type="submit" className={styles.submit} aria-label={t('search.submit')}>
          {icon}
        </button>
      </form>
    </>
  );
}
