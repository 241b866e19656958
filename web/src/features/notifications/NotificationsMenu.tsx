import { useNavigate } from 'react-router';
import { LIMITS } from '@kith/common';
import { useNotifications } from '../../api/queries';
import { Avatar } from '../../components/Avatar';
import { Dropdown } from '../../components/Dropdown';
import { useRelativeTime } from '../../hooks/useRelativeTime';
import { useTranslation } from '../../lib/i18n';
import { collapseNotifications, entryTarget, type NotificationEntry, unreadEntries } from './collapse';
import { entryText, notificationLink } from './notificationText';
import { useNotificationActions } from './useNotificationActions';
import styles from './NotificationsMenu.module.css';

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
  const age = useRelativeTime();
  const navigate = useNavigate();
  const { data = [] } = useNotifications();
  const { markRead, markAllRead, remove } = useNotificationActions();
  const entries = collapseNotifications(data);
  const shown = entries.slice(0, LIMITS.notificationsShown);
  const unread = unreadEntries(entries);

  const open = (entry: NotificationEntry, close: () => void) => {
    markRead(entry.all.filter((n) => !n.read).map((n) => n.id));
    close();
    const link = notificationLink(entryTarget(entry));
    if (link === null) return;
    if (/^https?:\/\//.test(link)) window.location.assign(link);
    else void navigate(link);
  };

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
        <section className={styles.panel} aria-label={t('notifications.title')}>
          <div className={styles.head}>
            <h2>{t('notifications.title')}</h2>
            {unread > 0 && (
              <button type="button" className={styles.readAll} onClick={markAllRead}>
                {t('notifications.read_all')}
              </button>
            )}
          </div>
          {shown.length === 0 && <p className={styles.empty}>{t('notifications.empty')}</p>}
          <ul className={styles.list}>
            {shown.map((entry) => (
              <li key={entry.lead.id} className={entry.unread ? `${styles.item} ${styles.unread}` : styles.item}>
                <button type="button" className={styles.open} onClick={() => open(entry, close)}>
                  <Avatar user={entry.lead.fromUser} px={36} />
                  <span className={styles.text}>
                    <span>{entryText(t, entry)}</span>
                    <span className={styles.time}>{age(entry.lead.createdAt)}</span>
                  </span>
                </button>
                <button
                  type="button"
                  className={styles.remove}
                  aria-label={t('notifications.remove')}
                  title={t('notifications.remove')}
                  onClick={() => remove(entry.all.map((n) => n.id))}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </Dropdown>
  );
}
