import { errorText } from '../lib/errors';
import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';

/** A failed load with a way to try again. */
export function LoadError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  return (
    <div className={ui.page}>
      <div className={ui.card} role="alert">
        <p className={ui.error}>{errorText(t, error)}</p>
        {onRetry && (
          <button type="button" className={ui.buttonSecondary} onClick={onRetry}>
            {t('common.retry')}
          </button>
        )}
      </div>
    </div>
  );
}
