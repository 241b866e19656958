import { useState } from 'react';
import { useBookmarks } from '../../api/queries';
import { useTranslation } from '../../lib/i18n';
import { bookmarkOf, useBookmarkActions } from './useBookmarkActions';
import styles from './BookmarkToggle.module.css';

/** The bookmark icon: filled when the message is bookmarked. */
export function BookmarkIcon({ filled }: { filled: boolean }) {
  return (
    <svg width="22" height="22" viewBox="0 0 24 24" aria-hidden="true">
      <path
        d="M6 3h12a1 1 0 0 1 1 1v17l-7-4.5L5 21V4a1 1 0 0 1 1-1Z"
        fill={filled ? 'currentColor' : 'none'}
        stroke="currentColor"
        strokeWidth="2"
        strokeLinejoin="round"
      />
    </svg>
  );
}

/** A button that bookmarks a message or removes its bookmark; `aria-pressed` says which it is. */
export function BookmarkToggle({ messageId }: { messageId: string }) {
  const { t } = useTranslation();
  const bookmarks = useBookmarks();
  const { add, remove } = useBookmarkActions();
  const [busy, setBusy] = useState(false);
  const bookmark = bookmarkOf(bookmarks.data, messageId);
  const pressed = bookmark !== undefined;

  const toggle = () => {
    if (busy) return;
    setBusy(true);
    void (bookmark ? remove(bookmark) : add(messageId)).finally(() => setBusy(false));
  };

  return (
    <button
      type="button"
      className={styles.toggle}
      aria-pressed={pressed}
      aria-label={t('bookmarks.bookmark')}
      title={pressed ? t('bookmarks.remove') : t('bookmarks.add')}
      // Until the list is known the state is unknown: better no button press than a wrong one.
      disabled={bookmarks.data === undefined || busy}
      onClick={toggle}
    >
      <BookmarkIcon filled={pressed} />
    </button>
  );
}
