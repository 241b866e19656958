import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { useMessage } from '../../api/queries';
import type { MessageRef } from '@kith/common';
import { Spinner } from '../../components/Spinner';
import {
  type CommentWindow,
  hasNext,
  hasPrevious,
  initialWindow,
  nextCount,
  previousCount,
  showAll,
  showNext,
  showPrevious,
} from './commentWindow';
import { useTranslation } from '../../lib/i18n';
import { MessageView } from './MessageView';
import styles from './Comments.module.css';

function Comment({ id, highlighted }: { id: string; highlighted: boolean }) {
  const { t } = useTranslation();
  const { data: message } = useMessage(id);
  const ref = useRef<HTMLLIElement>(null);
  const scrolled = useRef(false);

  useEffect(() => {
    // The comment named in the URL is scrolled into view once it is there.
    if (highlighted && message !== undefined && !scrolled.current) {
      scrolled.current = true;
      ref.current?.scrollIntoView({ block: 'center' });
    }
  }, [highlighted, message]);

  return (
    <li
      ref={ref}
      id={`comment-${id}`}
      className={highlighted ? `${styles.comment} ${styles.highlighted}` : styles.comment}
    >
      {message === undefined ? (
        <Spinner small />
      ) : (
        <>
          <MessageView message={message} />
          <div className={styles.links}>
            {message.children.length > 0 && (
              <Link to={`/messages/${id}`}>{t('comments.replies', { count: message.children.length })}</Link>
            )}
            {!message.isDeleted && <Link to={`/messages/${id}?focus=reply`}>{t('comments.reply')}</Link>}
          </div>
        </>
      )}
    </li>
  );
}

/**
 * The window of child comments: the last 5, or those around the named child; previous and next
 * links in steps of 10; a new comment reveals all of them (product spec §2, §9).
 */
export function Comments({ items, focusId }: { items: MessageRef[]; focusId?: string }) {
  const { t } = useTranslation();
  const count = items.length;
  const [window, setWindow] = useState<CommentWindow>(() =>
    initialWindow(count, focusId === undefined ? undefined : items.findIndex((item) => item.id === focusId)),
  );
  const seen = useRef(count);

  useEffect(() => {
    if (count > seen.current) setWindow(showAll(count));
    else if (count < seen.current) setWindow((w) => ({ start: Math.min(w.start, count), end: Math.min(w.end, count) }));
    seen.current = count;
  }, [count]);

  if (count === 0) return null;
  return (
    <section className={styles.comments} aria-label={t('comments.title')}>
      {hasPrevious(window) && (
        <button type="button" className={styles.more} onClick={() => setWindow(showPrevious(window, count))}>
          {t('comments.previous', { count: previousCount(window) })}
        </button>
      )}
      <ol className={styles.list}>
        {items.slice(window.start, window.end).map((item) => (
          <Comment key={item.id} id={item.id} highlighted={item.id === focusId} />
        ))}
      </ol>
      {hasNext(window, count) && (
        <button type="button" className={styles.more} onClick={() => setWindow(showNext(window, count))}>
          {t('comments.next', { count: nextCount(window, count) })}
        </button>
      )}
    </section>
  );
}
