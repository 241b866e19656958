import { useQueries } from '@tanstack/react-query';
import { Link } from 'react-router';
import { keys } from '../../api/queries';
import { plainText, type Message } from '@kith/common';
import { call } from '../../lib/api';
import { useTranslation } from '../../lib/i18n';
import { truncate } from './links';
import styles from './Breadcrumbs.module.css';

const LABEL_MAX = 30; // product spec §9

function label(message: Message | undefined, fallback: string): string {
  const text = message?.data.title?.trim() || plainText(message?.data.text ?? '').trim() || fallback;
  return truncate(text.replace(/\s+/g, ' '), LABEL_MAX);
}

/** The group, the root and at most the last 3 ancestors of a reply (product spec §2). */
export function Breadcrumbs({ message }: { message: Message }) {
  const { t } = useTranslation();
  // lineage is nearest parent first, root last.
  const root = message.lineage.at(-1);
  const between = message.lineage.slice(0, -1).slice(0, 3).reverse();
  const ids = root === undefined ? [] : [root, ...between];
  const ancestors = useQueries({
    queries: ids.map((id) => ({
      queryKey: keys.message(id),
      queryFn: ({ signal }: { signal: AbortSignal }) => call('GET /api/messages/{id}', { params: { id }, signal }),
    })),
  });
  return (
    <nav aria-label={t('message.breadcrumbs')} className={styles.crumbs}>
      <ol>
        {message.group && (
          <li>
            <Link to={`/groups/${message.group.id}`}>{truncate(message.group.name, LABEL_MAX)}</Link>
          </li>
        )}
        {ids.map((id, index) => (
          <li key={id}>
            <Link to={`/messages/${id}`}>{label(ancestors[index]?.data, t('message.untitled'))}</Link>
          </li>
        ))}
      </ol>
    </nav>
  );
}
