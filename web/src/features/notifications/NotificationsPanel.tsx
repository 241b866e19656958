import { useNavigate } from 'react-router';
import { Avatar } from '../../components/Avatar';
import { useRelativeTime } from '../../hooks/useRelativeTime';
import { useTranslation } from '../../lib/i18n';
import { entryTarget, type NotificationEntry } from './collapse';
import { entryText, notificationLink } from './notificationText';
import { useNotificationActions } from './useNotificationActions';
import styles from './NotificationsMenu.module.css';

interface PanelProps {
  /** The entries to list, newest first. */
  entries: NotificationEntry[];
  /** How many entries are unread (all of them, not only the listed ones). */
  unread: number;
  /** Closes the menu. */
  close: () => void;
}

/** The open notification panel: its entries, each opened, read or removed as a whole. */
export default function NotificationsPanel({ entries, unread, close }: PanelProps) {
  const { t, i18n } = useTranslation();
  const age = useRelativeTime();
  const navigate = useNavigate();
  const { markRead, markAllRead, remove } = useNotificationActions();

  const open = (entry: NotificationEntry) => {
    markRead(entry.all.filter((n) => !n.read).map((n) => n.id));
    close();
    const link = notificationLink(entryTarget(entry));
    if (link === null) return;
    if (/^https?:\/\//.test(link)) window.location.assign(link);
    else void navigate(link);
  };

  return (
    <section className={styles.panel} aria-label={t('notifications.title')}>
      <div className={styles.head}>
        <h2>{t('notifications.title')}</h2>
        {unread > 0 && (
          <button type="button" className={styles.readAll} onClick={markAllRead}>
            {t('notifications.read_all')}
          </button>
        )}
      </div>
      {entries.length === 0 && <p className={styles.empty}>{t('notifications.empty')}</p>}
      <ul className={styles.list}>
        {entries.map((entry) => (
          <li key={entry.lead.id} className={entry.unread ? `${styles.item} ${styles.unread}` : styles.item}>
            <button type="button" className={styles.open} onClick={() => open(entry)}>
              <Avatar user={entry.lead.fromUser} px={36} />
              <span className={styles.text}>
                <span>{entryText(t, i18n.language, entry)}</span>
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
  );
}
