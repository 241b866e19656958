import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from '../../lib/i18n';
import styles from './SearchBox.module.css';

/**
 * The navigation's search of the current group (product spec §2). On a phone only the search
 * button shows; pressed with nothing typed it focuses the field, which opens as a bar under the
 * navigation while it has the focus (CSS only: no open state to carry in the first screen).
 */
export function SearchBox({ groupId }: { groupId: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [text, setText] = useState('');

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const field = event.currentTarget.elements.namedItem('q') as HTMLInputElement;
    if (text.trim() === '') return field.focus();
    // The query rule loads on the first search, keeping it out of the first screen.
    void import('./query').then(({ searchPath }) => {
      const path = searchPath(groupId, text);
      if (path === null) return;
      setText('');
      field.blur();
      void navigate(path);
    });
  };

  return (
    <form role="search" className={styles.form} onSubmit={submit}>
      <input
        name="q"
        type="search"
        className={styles.input}
        value={text}
        onChange={(event) => setText(event.target.value)}
        aria-label={t('search.field')}
        placeholder={t('search.submit')}
      />
      <button type="submit" className={styles.submit} aria-label={t('search.submit')}>
        <svg
          width="20"
          height="20"
          viewBox="0 0 24 24"
          aria-hidden="true"
          fill="none"
          stroke="currentColor"
          strokeWidth="2.4"
        >
          <circle cx="10.5" cy="10.5" r="6.5" />
          <path d="m15.5 15.5 5 5" strokeLinecap="round" />
        </svg>
      </button>
    </form>
  );
}
