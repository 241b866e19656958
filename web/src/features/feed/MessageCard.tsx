import { Link } from 'react-router';
import type { MessagePreview } from '@kith/common';
import { Avatar } from '../../components/Avatar';
import { imageUrl } from '../../lib/api';
import { useRelativeTime } from '../../hooks/useRelativeTime';
import { useTranslation } from '../../lib/i18n';
import styles from './MessageCard.module.css';

const TEXT_PREVIEW = 280;

function CommentIcon({ filled }: { filled: boolean }) {
  return (
    <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true">
      <path
        d="M4 4h16a1 1 0 0 1 1 1v11a1 1 0 0 1-1 1H9l-5 4v-4H4a1 1 0 0 1-1-1V5a1 1 0 0 1 1-1Z"
        fill={filled ? 'currentColor' : 'none'}
        stroke="currentColor"
        strokeWidth="2"
        strokeLinejoin="round"
      />
    </svg>
  );
}

/**
 * A group-feed card: author avatar, title or relative date, text or image preview, and the comment
 * count with a filled icon when there is something new (product spec §2).
 */
export function MessageCard({ message, isNew, backUrl }: { message: MessagePreview; isNew: boolean; backUrl: string }) {
  const { t } = useTranslation();
  const age = useRelativeTime();
  const title = message.data.title?.trim();
  const text = message.data.text?.trim() ?? '';
  const when = age(message.lastActivityDate);
  return (
    <article className={styles.card}>
      <Link to={`/messages/${message.id}`} state={{ backUrl }} className={styles.link}>
        {message.preview ? (
          <img
            className={styles.picture}
            src={imageUrl('crop', '320/180', message.preview.id)}
            alt=""
            loading="lazy"
            width={320}
            height={180}
          />
        ) : (
          text !== '' && (
            <p className={styles.text}>{text.length > TEXT_PREVIEW ? `${text.slice(0, TEXT_PREVIEW)}…` : text}</p>
          )
        )}
        <div className={styles.foot}>
          <Avatar user={message.author} px={32} />
          <span className={styles.title}>{title || when}</span>
          <span
            className={isNew ? `${styles.comments} ${styles.new}` : styles.comments}
            aria-label={
              isNew
                ? t('feed.comments_new', { count: message.children })
                : t('feed.comments', { count: message.children })
            }
          >
            <CommentIcon filled={isNew} />
            {message.children > 0 && <span>{message.children}</span>}
          </span>
        </div>
      </Link>
    </article>
  );
}
