import { useQuery, useQueryClient } from '@tanstack/react-query';
import { formatDate, type Me } from '@kith/common';
import { keys } from '../../api/queries';
import { useNow } from '../../hooks/useRelativeTime';
import { useSubmit } from '../../hooks/useSubmit';
import { call } from '../../lib/api';
import { appPath } from '../../lib/config';
import { bcp47, useTranslation } from '../../lib/i18n';
import ui from '../../styles/ui.module.css';
import styles from '../settings/Settings.module.css';
import { exportView, formatSize } from './exportState';

// While an export is being built, the list is read again now and then, in case the live event
// that says it is ready was missed (a closed stream).
const BUILDING_POLL_MS = 15_000;

/** "Your data": export everything the member wrote as one zip (issue 22). */
export function DataPanel(_props: { me: Me }) {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const { pending, run } = useSubmit();
  const now = useNow();
  const exports = useQuery({
    queryKey: keys.exports,
    queryFn: () => call('GET /api/me/exports'),
    refetchInterval: (query) => (query.state.data?.exports[0]?.state === 'building' ? BUILDING_POLL_MS : false),
  });

  const start = () =>
    void run(async () => {
      await call('POST /api/me/exports');
      await client.invalidateQueries({ queryKey: keys.exports });
    });

  const view = exports.data === undefined ? null : exportView(exports.data, Math.floor(now / 1000));
  const lang = bcp47(i18n.language);
  return (
    <div className={styles.sections}>
      <section className={styles.section} aria-labelledby="settings-export">
        <h2 id="settings-export" className={styles.heading}>
          {t('data.title')}
        </h2>
        <p className={ui.muted}>{t('data.explanation')}</p>
        <div role="status" aria-live="polite" className={styles.section}>
          {view?.kind === 'building' && <p>{t('data.building')}</p>}
          {view?.kind === 'ready' && (
            <>
              <p>{t('data.ready', { size: formatSize(lang, view.export.size ?? 0) })}</p>
              <p>
                <a className={ui.button} href={appPath(view.export.downloadUrl ?? '')} download>
                  {t('data.download')}
                </a>
              </p>
              {view.export.expiresAt !== null && (
                <p className={ui.muted}>
                  {t('data.expires', { date: formatDate(i18n.language, new Date(view.export.expiresAt * 1000)) })}
                </p>
              )}
            </>
          )}
          {view?.kind === 'failed' && <p>{t('data.failed')}</p>}
          {view?.kind === 'limited' && <p className={ui.muted}>{t('data.limit')}</p>}
        </div>
        {view !== null && view.kind !== 'building' && (
          <div>
            <button
              type="button"
              className={view.kind === 'ready' ? ui.buttonSecondary : ui.button}
              disabled={pending || !view.canStart}
              onClick={start}
            >
              {t('data.start')}
            </button>
          </div>
        )}
      </section>
    </div>
  );
}
