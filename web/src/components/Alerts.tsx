import { useSyncExternalStore } from 'react';
import { alerts } from '../lib/alerts.ts';
import type { AlertStyle, createAlertStore } from '../lib/alerts.ts';
import { useTranslation } from '../lib/i18n';
import styles from './Alerts.module.css';

// Problems interrupt the screen reader; confirmations wait for a pause.
const ROLES: Record<AlertStyle, 'alert' | 'status'> = {
  success: 'status',
  info: 'status',
  warning: 'alert',
  danger: 'alert',
};

/** The transient alerts, stacked at the top centre of the screen, each with a close button. */
export function Alerts({ store = alerts }: { store?: ReturnType<typeof createAlertStore> }) {
  const { t } = useTranslation();
  const visible = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  return (
    <div className={styles.stack}>
      {visible.map((alert) => (
        <div
          key={alert.id}
          role={ROLES[alert.style]}
          data-style={alert.style}
          className={`${styles.alert} ${styles[alert.style] ?? ''}`}
        >
          <span className={styles.text}>{alert.text}</span>
          <button
            type="button"
            className={styles.close}
            aria-label={t('alert.close')}
            onClick={() => store.dismiss(alert.id)}
          >
            <span aria-hidden="true">×</span>
          </button>
        </div>
      ))}
    </div>
  );
}
