import { type FormEvent, useId } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { useMe } from '../api/queries';
import { LoadError } from '../components/LoadError';
import { Spinner } from '../components/Spinner';
import { parseSearch, searchPath } from '../features/search/query';
import { SearchResult } from '../features/search/SearchResult';
import { useSearch } from '../features/search/useSearch';
import { useStateResetOn } from '../hooks/useStateResetOn';
import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';
import styles from './Search.module.css';

/** /groups/{id}/search?q=&hashtags=: the group's messages that match (product spec §2, §4). */
export default function Search() {
  const { id = '' } = useParams();
  const [params] = useSearchParams();
  const { t } = useTranslation();
  const navigate = useNavigate();
  const inputId = useId();
  const { data: me } = useMe();
  const groupName = me?.groups.find((group) => group.id === id)?.name ?? '';

  // "+" in the URL reads as a space: words and hashtags come back as lists.
  const query = parseSearch(params.get('q') ?? '', params.get('hashtags') ?? '');
  const shown = [...query.words, ...query.hashtags.map((tag) => `#${tag}`)].join(' ');
  // A new search from the navigation or a hashtag puts its text in the field.
  const [draft, setDraft] = useStateResetOn(shown, () => shown);
  const search = useSearch(id, query);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const path = searchPath(id, draft);
    if (path !== null) void navigate(path);
  };

  // The windows read so far, newest first; each ranks its own matches.
  const results = search.data?.pages.flatMap((page) => page.messages) ?? [];
  const total = search.data?.pages.reduce((sum, page) => sum + page.totalItems, 0) ?? 0;
  const backUrl = `/groups/${id}/search?${params.toString()}`;
  return (
    <div className={ui.page}>
      <h1 className={ui.title}>{groupName ? t('search.title', { group: groupName }) : t('search.submit')}</h1>
      <form role="search" className={styles.form} onSubmit={submit}>
        <label className={styles.label} htmlFor={inputId}>
          {t('search.field')}
        </label>
        <div className={ui.row}>
          <input
            id={inputId}
            className={`${ui.input} ${styles.input}`}
            type="search"
            name="q"
            value={draft}
            placeholder={t('search.placeholder')}
            onChange={(event) => setDraft(event.target.value)}
          />
          <button className={ui.button} type="submit">
            {t('search.submit')}
          </button>
        </div>
      </form>
      {!search.enabled ? null : search.isError && search.data === undefined ? (
        <LoadError error={search.error} onRetry={() => void search.refetch()} />
      ) : search.data === undefined ? (
        <Spinner />
      ) : (
        <>
          {results.length === 0 ? (
            <p className={`${ui.card} ${styles.empty}`} role="status">
              {t('search.search_without_result')}
            </p>
          ) : (
            <>
              <p className={ui.muted} role="status">
                {t('search.count', { count: total })}
              </p>
              <ul className={styles.results}>
                {results.map((result) => (
                  <SearchResult key={result.id} result={result} backUrl={backUrl} />
                ))}
              </ul>
            </>
          )}
          {search.hasNextPage ? (
            <div className={styles.older}>
              <p className={ui.muted}>{t('search.recent_only')}</p>
              {search.isFetchNextPageError ? (
                <LoadError error={search.error} onRetry={() => void search.fetchNextPage()} />
              ) : search.isFetchingNextPage ? (
                <Spinner />
              ) : (
                <button className={ui.button} type="button" onClick={() => void search.fetchNextPage()}>
                  {t('search.older')}
                </button>
              )}
            </div>
          ) : null}
        </>
      )}
    </div>
  );
}
