import { Link } from 'react-router';
import { plainText } from '@kith/common';
import { useBookmarks, useNotifications } from '../api/queries';
import { LoadError } from '../components/LoadError';
import { Spinner } from '../components/Spinner';
import { BookmarkIcon } from '../features/bookmarks/BookmarkToggle';
import { hasCard, useBookmarkActions } from '../features/bookmarks/useBookmarkActions';
import { MessageCard } from './GroupFeed';
import { isMessageNew } from '../features/notifications/newness';
import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';
import styles from './Bookmarks.module.css';

/** /bookmarks: the bookmarked messages as a grid of cards, each with a button that removes it. */
export default function Bookmarks() {
  const { t } = useTranslation();
  const bookmarks = useBookmarks();
  const { data: notifications = [] } = useNotifications();
  const { remove } = useBookmarkActions();

  if (bookmarks.isError) return <LoadError error={bookmarks.error} onRetry={() => void bookmarks.refetch()} />;
  // A bookmark just added names its message by reference until the list is read again with cards.
  const cards = bookmarks.data?.filter(hasCard) ?? [];

  return (
    <div className={styles.page}>
      <h1 className={styles.title}>{t('bookmarks.title')}</h1>
      {bookmarks.isPending ? (
        <Spinner />
      ) : bookmarks.data.length === 0 ? (
        <div className={`${ui.card} ${styles.empty}`}>
          <p>{t('bookmarks.empty')}</p>
          <Link className={ui.buttonSecondary} to="/">
            {t('bookmarks.back')}
          </Link>
        </div>
      ) : (
        <ul className={styles.grid}>
          {cards.map((bookmark) => {
            const message = bookmark.message;
            const name =
              message.data.title?.trim() ||
              plainText(message.data.text ?? '')
                .trim()
                .slice(0, 60) ||
              t('message.untitled');
            return (
              <li key={bookmark.id} className={styles.item}>
                <MessageCard message={message} backUrl="/bookmarks" isNew={isMessageNew(notifications, message.id)} />
                <div className={styles.foot}>
                  <span className={styles.group}>{message.group?.name}</span>
                  <button
                    type="button"
                    className={styles.remove}
                    aria-label={t('bookmarks.remove_named', { name })}
                    title={t('bookmarks.remove')}
                    onClick={() => void remove(bookmark)}
                  >
                    <BookmarkIcon filled />
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
