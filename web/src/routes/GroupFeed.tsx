import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useFeed, useMe, useNotifications } from '../api/queries';
import { LoadError } from '../components/LoadError';
import { Spinner } from '../components/Spinner';
import { MessageCard } from '../features/feed/MessageCard';
import { shouldFetchMore } from '../features/feed/paging';
import { useRevealedCount } from '../features/feed/useRevealedCount';
import { useTranslation } from '../lib/i18n';
import { isMessageNew } from '../features/notifications/newness';
import ui from '../styles/ui.module.css';
import styles from './GroupFeed.module.css';

// Opened by a click, so its code (shared with the group settings) stays out of the first screen.
const InvitePanel = lazy(() => import('../features/groups/InvitePanel').then((m) => ({ default: m.InvitePanel })));

/** /groups/{id}: the feed, revealed as the reader scrolls (product spec §4), and the write button. */
export default function GroupFeed() {
  const { id = '' } = useParams();
  const { t } = useTranslation();
  // The name comes from the user's group list, so the feed needs no other call (docs/api §11.1).
  const { data: me } = useMe();
  const groupName = me?.groups.find((group) => group.id === id)?.name ?? '';
  const feed = useFeed(id);
  const { data: notifications = [] } = useNotifications();
  const [inviteOpen, setInviteOpen] = useState(false);

  const cards = feed.data?.pages.flatMap((page) => page.messages) ?? [];
  const loaded = cards.length;
  const hasMore = feed.hasNextPage;
  const [visible, cardsEndRef] = useRevealedCount(id, loaded);

  const { fetchNextPage, isFetchingNextPage } = feed;
  useEffect(() => {
    if (shouldFetchMore(visible, loaded, hasMore) && !isFetchingNextPage) void fetchNextPage();
  }, [visible, loaded, hasMore, isFetchingNextPage, fetchNextPage]);

  if (feed.isError) return <LoadError error={feed.error} onRetry={() => void feed.refetch()} />;

  return (
    <div className={styles.page}>
      <header className={styles.header}>
        <h1 className={styles.name}>{groupName}</h1>
        <div className={ui.row}>
          <button
            type="button"
            className={ui.buttonSecondary}
            onClick={() => setInviteOpen((open) => !open)}
            aria-expanded={inviteOpen}
          >
            {t('group.invite')}
          </button>
          <Link className={ui.buttonSecondary} to={`/groups/${id}/settings`}>
            {t('group_settings.title')}
          </Link>
          {loaded > 0 && (
            <Link className={ui.buttonSecondary} to={`/groups/${id}/random`}>
              {t('group.random')}
            </Link>
          )}
        </div>
      </header>
      {inviteOpen && (
        <Suspense fallback={<Spinner />}>
          <InvitePanel groupId={id} />
        </Suspense>
      )}
      {feed.isPending ? (
        <Spinner />
      ) : loaded === 0 ? (
        <div className={`${ui.card} ${styles.empty}`}>
          <p>{t('feed.empty')}</p>
          <Link className={ui.button} to={`/groups/${id}/write`}>
            {t('feed.write_first')}
          </Link>
        </div>
      ) : (
        <div className={styles.grid}>
          {cards.slice(0, visible).map((card) => (
            <MessageCard
              key={card.id}
              backUrl={`/groups/${id}`}
              message={card}
              isNew={card.unread === true || isMessageNew(notifications, card.id)}
            />
          ))}
        </div>
      )}
      <div ref={cardsEndRef} />
      {isFetchingNextPage && <Spinner />}
      <Link className={styles.write} to={`/groups/${id}/write`} aria-label={t('feed.write')} title={t('feed.write')}>
        <svg width="28" height="28" viewBox="0 0 24 24" aria-hidden="true" fill="currentColor">
          <path d="M3 17.25V21h3.75L17.8 9.94l-3.75-3.75L3 17.25Zm17.7-10.2a1 1 0 0 0 0-1.41l-2.34-2.34a1 1 0 0 0-1.41 0l-1.83 1.83 3.75 3.75 1.83-1.83Z" />
        </svg>
      </Link>
    </div>
  );
}

// The bookmarks screen shows the same cards and takes them from here: the card then stays in this
// screen's chunk, instead of a shared chunk that the first screen would load as one more file.
export { MessageCard } from '../features/feed/MessageCard';
