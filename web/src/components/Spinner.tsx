import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';

/** A loading indicator, announced to screen readers. */
export function Spinner({ small = false }: { small?: boolean }) {
  const { t } = useTranslation();
  const spinner = (
    <span className={small ? ui.spinnerSmall : ui.spinner} role="status" aria-label={t('common.loading')} />
  );
  return small ? spinner : <div className={ui.center}>{spinner}</div>;
}
