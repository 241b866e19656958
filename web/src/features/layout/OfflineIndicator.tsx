import { useTranslation } from '../../lib/i18n';
import { useLiveOffline } from '../live/liveStatus';
import styles from './OfflineIndicator.module.css';

/**
 * A small sign while live updates are offline; it goes away by itself once they are back. The
 * status region is always there, so screen readers announce the text when it appears.
 */
export function OfflineIndicator() {
  const { t } = useTranslation();
  const offline = useLiveOffline();
  return (
    <div role="status" className={styles.region}>
      {offline && (
        <span className={styles.sign}>
          <span className={styles.dot} aria-hidden="true" />
          {t('live.offline')}
        </span>
      )}
    </div>
  );
}
