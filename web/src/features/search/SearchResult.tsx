import { Link } from 'react-router';
import type { SearchMessage } from '@kith/common';
import { useRelativeTime } from '../../hooks/useRelativeTime';
import { imageUrl } from '../../lib/api';
import { Snippet } from './Snippet';
import styles from './SearchResult.module.css';

/**
 * One search hit as a card: title, the snippet with its matches marked, the card picture and the
 * date. A reply opens inside its conversation (/messages/<parent>/<reply>), as in the feed's
 * notifications.
 */
export function SearchResult({ result, backUrl }: { result: SearchMessage; backUrl: string }) {
  const age = useRelativeTime();
  const to = result.parent === '' ? `/messages/${result.id}` : `/messages/${result.parent}/${result.id}`;
  const title = result.data.title.trim();
  return (
    <li className={styles.card}>
      <Link to={to} state={{ backUrl }} className={styles.link}>
        <div className={styles.body}>
          {title !== '' && <h2 className={styles.title}>{title}</h2>}
          {result.snippet.text !== '' && <Snippet className={styles.snippet} snippet={result.snippet} />}
          <span className={styles.date}>{age(result.lastActivityDate)}</span>
        </div>
        {result.preview !== '' && (
          <img
            className={styles.picture}
            src={imageUrl('crop', '80/80', result.preview)}
            alt=""
            loading="lazy"
            width={80}
            height={80}
          />
        )}
      </Link>
    </li>
  );
}
