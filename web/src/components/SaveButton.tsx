import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';

/** The Save button that ends a settings form, on a line of its own, off while the form is sent. */
export function SaveButton({ pending }: { pending: boolean }) {
  const { t } = useTranslation();
  return (
    <div>
      <button className={ui.button} type="submit" disabled={pending}>
        {t('settings.save')}
      </button>
    </div>
  );
}
