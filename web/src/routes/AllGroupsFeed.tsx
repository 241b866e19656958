import { useEffect } from 'react';
import { Link } from 'react-router';
import { useAllFeed, useMe, useNotifications } from '../api/queries';
import { LoadError } from '../components/LoadError';
import { Spinner } from '../components/Spinner';
import { visibleCards } from '../features/feed/allGroups';
import { shouldFetchMore } from '../features/feed/paging';
import { useRevealedCount } from '../features/feed/useRevealedCount';
import { isMessageNew } from '../features/notifications/newness';
import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';
// The card comes through the group page's module, so it stays in that chunk (which the first
// screen loads) instead of a shared chunk that would be one more file, as for /bookmarks.
import { MessageCard } from './GroupFeed';
import styles from './AllGroupsFeed.module.css';

const BACK_URL = '/feed';

/**
 * /feed: the latest activity of all the user's groups (docs/api §11.8), revealed as the reader
 * scrolls like a group's feed; each card says which group it is from, as a link to that group.
 */
export default function AllGroupsFeed() {
  const { t } = useTranslation();
  const { data: me } = useMe();
  const feed = useAllFeed();
  const { data: notifications = [] } = useNotifications();

  const loadedCards = feed.data?.pages.flatMap((page) => page.messages) ?? [];
  // Groups are named as the user's group list names them now, and a group just left is gone at once.
  const cards = visibleCards(loadedCards, me?.groups);
  const loaded = loadedCards.length;
  const hasMore = feed.hasNextPage;
  const [visible, cardsEndRef] = useRevealedCount('all', loaded);

  const { fetchNextPage, isFetchingNextPage } = feed;
  useEffect(() => {
    if (shouldFetchMore(visible, loaded, hasMore) && !isFetchingNextPage) void fetchNextPage();
  }, [visible, loaded, hasMore, isFetchingNextPage, fetchNextPage]);

  if (feed.isError) return <LoadError error={feed.error} onRetry={() => void feed.refetch()} />;

  return (
    <div className={styles.page}>
      <header className={styles.header}>
        <h1 className={styles.name}>{t('all_feed.title')}</h1>
      </header>
      {feed.isPending ? (
        <Spinner />
      ) : cards.length === 0 ? (
        <div className={`${ui.card} ${styles.empty}`}>
          <p>{me?.groups.length === 0 ? t('all_feed.no_groups') : t('all_feed.empty')}</p>
          {me?.groups.length === 0 && (
            <Link className={ui.button} to="/create-group">
              {t('all_feed.create_group')}
            </Link>
          )}
        </div>
      ) : (
        <div className={styles.grid}>
          {cards.slice(0, visible).map(({ card, groupName }) => (
            <div key={card.id} className={styles.item}>
              {/* The name alone is shown; the accessible name also says where the link goes. */}
              <Link
                className={styles.group}
                to={`/groups/${card.group.id}`}
                aria-label={t('all_feed.open_group', { group: groupName })}
              >
                {groupName}
              </Link>
              <MessageCard
                backUrl={BACK_URL}
                message={card}
                isNew={card.unread === true || isMessageNew(notifications, card.id)}
              />
            </div>
          ))}
        </div>
      )}
      <div ref={cardsEndRef} />
      {isFetchingNextPage && <Spinner />}
    </div>
  );
}
