import type { ReactNode } from 'react';
import { formatDateTime, type Message } from '@kith/common';
import { Avatar } from '../../components/Avatar';
import { useRelativeTime } from '../../hooks/useRelativeTime';
import { useTranslation } from '../../lib/i18n';
import { PinnedMark } from '../pins/PinnedMark';
import styles from './MessageHead.module.css';

interface MessageHeadProps {
  message: Message;
  /** The actions `message.can` allows the caller (edit, delete, publish). */
  actions?: ReactNode;
}

/** Avatar, author name and date. A removed author shows the default avatar and no name. */
export function MessageHead({ message, actions }: MessageHeadProps) {
  const { t, i18n } = useTranslation();
  const age = useRelativeTime();
  const date = new Date(message.createdAt * 1000);
  return (
    <div className={styles.head}>
      <Avatar user={message.author} px={40} />
      <div className={styles.meta}>
        {message.author !== null && <span className={styles.name}>{message.author.name}</span>}
        <time className={styles.time} dateTime={date.toISOString()} title={formatDateTime(i18n.language, date)}>
          {age(message.createdAt)}
        </time>
      </div>
      {message.pinnedInGroup && <PinnedMark />}
      {message.isPublic && (
        <span className={styles.public} title={t('share.public_badge_hint')}>
          {t('share.public_badge')}
        </span>
      )}
      {actions !== undefined && <div className={styles.actions}>{actions}</div>}
    </div>
  );
}
