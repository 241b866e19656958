import { Link } from 'react-router';
import { plainText, type MessagePreview } from '@kith/common';
import { Avatar } from '../../components/Avatar';
import { imageUrl } from '../../lib/api';
import { useRelativeTime } from '../../hooks/useRelativeTime';
import { useTranslation } from '../../lib/i18n';
import { PinnedMark } from '../pins/PinnedMark';
import { ReactionSummaryLine } from './ReactionSummaryLine';
import { cardPicture } from './cardPicture';
import styles from './MessageCard.module.css';
import { withCurrentNames } from '../mentions/mentions';

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

// Small inline icons for files the server makes no picture of (audio, others); labelled, as they
// stand for the file in the card's link.
const ICON_PATHS = {
  audio: 'M9 18V6l11-2v12M9 18a3 3 0 1 1-6 0 3 3 0 0 1 6 0Zm11-2a3 3 0 1 1-6 0 3 3 0 0 1 6 0Z',
  file: 'M14 3H6a1 1 0 0 0-1 1v16a1 1 0 0 0 1 1h12a1 1 0 0 0 1-1V8l-5-5Zm0 0v5h5',
};

function FileIcon({ icon, label }: { icon: keyof typeof ICON_PATHS; label: string }) {
  return (
    <span className={styles.icon}>
      <svg width="48" height="48" viewBox="0 0 24 24" role="img" aria-label={label}>
        <path d={ICON_PATHS[icon]} fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinejoin="round" />
      </svg>
    </span>
  );
}

/** The card's picture of its preview file, or an icon for a file that has none. */
function CardPicture({ picture, fileId }: { picture: ReturnType<typeof cardPicture>; fileId: string }) {
  const { t } = useTranslation();
  if (picture.kind === 'icon')
    return <FileIcon icon={picture.icon} label={picture.icon === 'audio' ? t('feed.audio') : t('feed.file')} />;
  return (
    <img
      className={picture.top ? `${styles.picture} ${styles.top}` : styles.picture}
      src={imageUrl(picture.image, picture.size, fileId)}
      alt=""
      loading="lazy"
      width={320}
      height={180}
    />
  );
}

/**
 * A group-feed card: author avatar, title or relative date, text or image preview, and the comment
 * count with a filled icon when there is something new (product spec §2); "Pinned" on a pinned one.
 */
export function MessageCard({ message, isNew, backUrl }: { message: MessagePreview; isNew: boolean; backUrl: string }) {
  const { t } = useTranslation();
  const age = useRelativeTime();
  const title = message.data.title?.trim();
  // The excerpt reads without formatting markers (common/src/markup.ts), mentions under current names.
  const text = withCurrentNames(plainText(message.data.text ?? ''), message.mentions).trim();
  const when = age(message.lastActivityDate);
  const picture = message.preview ? cardPicture(message.preview.type) : null;
  return (
    <article className={styles.card}>
      <Link to={`/messages/${message.id}`} state={{ backUrl }} className={styles.link}>
        {/* Above the picture or text, and first in the link's name: "Pinned …". */}
        {message.pinnedInGroup && (
          <span className={styles.pinned}>
            <PinnedMark />
          </span>
        )}
        {message.preview && picture && <CardPicture picture={picture} fileId={message.preview.id} />}
        {/* An icon says little, so the text shows beneath it; a real picture stands alone. */}
        {picture?.kind !== 'picture' && text !== '' && (
          <p className={styles.text}>{text.length > TEXT_PREVIEW ? `${text.slice(0, TEXT_PREVIEW)}…` : text}</p>
        )}
        <div className={styles.foot}>
          <Avatar user={message.author} px={32} />
          <span className={styles.title}>{title || when}</span>
          <ReactionSummaryLine reactions={message.reactions} />
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
