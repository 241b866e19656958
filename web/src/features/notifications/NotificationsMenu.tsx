import { lazy, Suspense } from 'react';
import { LIMITS } from '@kith/common';
import { useNotifications } from '../../api/queries';
import { Dropdown } from '../../components/Dropdown';
import { Spinner } from '../../components/Spinner';
import { useTranslation } from '../../lib/i18n';
import { collapseNotifications, unreadEntries } from './collapse';
import styles from './NotificationsMenu.module.css';

const NotificationsPanel = lazy(() => import('./NotificationsPanel'));

function BellIcon() {
  return (
    <svg width="24" height="24" viewBox="0 0 24 24" aria-hidden="true" fill="currentColor">
      <path d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Z" />
    </svg>
  );
}

/**
 * The bell with its unread badge, and the 20 latest entries: comments on one message collapse into
 * one entry, which the badge counts once and which is read or removed as a whole.
 */
export function NotificationsMenu() {
  const { t } = useTranslation();
  const { data = [] } = useNotifications();
  const entries = collapseNotifications(data);
  const shown = entries.slice(0, LIMITS.notificationsShown);
  const unread = unreadEntries(entries);

  return (
    <Dropdown
      align="right"
      buttonClassName={styles.bell}
      ariaLabel={unread > 0 ? t('notifications.bell_unread', { count: unread }) : t('notifications.bell')}
      label={
        <>
          <BellIcon />
          {unread > 0 && (
            <span className={styles.badge} data-testid="unread-badge">
              {unread > 99 ? '99+' : unread}
            </span>
          )}
        </>
      }
    >
      {(close) => (
        // The list is its own chunk, loaded on the first opening: the first screen carries only
        // the bell and its count.
        <Suspense fallback={<Spinner />}>
          <NotificationsPanel entries={shown} unread={unread} close={close} />
        </Suspense>
      )}
    </Dropdown>
  );
}
