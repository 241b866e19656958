import { useTranslation } from 'react-i18next';
import { absoluteUrl } from '../../lib/config';
import { showAlert } from '../../lib/notify';
import ui from '../../styles/ui.module.css';

/** The group's invitation link, built from the base URL (contract §1.1), with a copy button. */
export function InvitePanel({ secretKey }: { groupId: string; secretKey: string }) {
  const { t } = useTranslation();
  const link = absoluteUrl(`/invitation/${secretKey}`);
  const copy = () => {
    navigator.clipboard.writeText(link).then(
      () => showAlert('group.invite_copied'),
      () => showAlert('errors.generic', 'danger'),
    );
  };
  return (
    <div className={ui.card} style={{ marginBottom: 16 }}>
      <p>{t('group.invite_explanation')}</p>
      <div className={ui.row}>
        <input
          className={ui.input}
          readOnly
          value={link}
          aria-label={t('group.invite_link')}
          onFocus={(e) => e.target.select()}
          data-testid="invite-link"
        />
        <button type="button" className={ui.button} onClick={copy}>
          {t('group.copy')}
        </button>
      </div>
    </div>
  );
}
