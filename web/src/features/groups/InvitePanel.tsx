import { useGroup } from '../../api/queries';
import { Spinner } from '../../components/Spinner';
import { absoluteUrl } from '../../lib/config';
import { useTranslation } from '../../lib/i18n';
import { showAlert } from '../../lib/notify';
import ui from '../../styles/ui.module.css';

/**
 * The group's invitation link, built from the base URL (docs/api §1.1), with a copy button. The
 * group is read only when the panel opens, so the feed itself costs no extra call.
 */
export function InvitePanel({ groupId }: { groupId: string }) {
  const { t } = useTranslation();
  const group = useGroup(groupId);
  if (group.data === undefined) return group.isError ? null : <Spinner />;
  // The instance may hide invitation links (docs/api §2.3): then there is no key to show.
  if (group.data.secretKey === undefined) {
    return (
      <div className={ui.card} style={{ marginBottom: 16 }}>
        <p>{t('group.invite_disabled')}</p>
      </div>
    );
  }
  const link = absoluteUrl(`/invitation/${group.data.secretKey}`);
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
          onFocus={(event) => event.target.select()}
          data-testid="invite-link"
        />
        <button type="button" className={ui.button} onClick={copy}>
          {t('group.copy')}
        </button>
      </div>
    </div>
  );
}
