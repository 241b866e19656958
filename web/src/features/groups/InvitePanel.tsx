import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { keys, useGroup } from '../../api/queries';
import type { Group } from '@kith/common';
import { Spinner } from '../../components/Spinner';
import { useSubmit } from '../../hooks/useSubmit';
import { call } from '../../lib/api';
import { absoluteUrl } from '../../lib/config';
import { useTranslation } from '../../lib/i18n';
import { showAlert } from '../../lib/notify';
import ui from '../../styles/ui.module.css';
import styles from './InvitePanel.module.css';

/** How long "Copied" stays beside the button. */
const COPIED_MS = 4000;

/**
 * The group's invitation link, built from the base URL (docs/api §1.1), with a copy button and,
 * in the group settings, a reset. The group is read only when the panel opens, so the feed itself
 * costs no extra call.
 */
export function InvitePanel({ groupId, allowReset = false }: { groupId: string; allowReset?: boolean }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const group = useGroup(groupId);
  const field = useRef<HTMLInputElement>(null);
  // 'copied' confirms next to the button; 'manual' asks to copy the selected field by hand.
  const [copyState, setCopyState] = useState<'idle' | 'copied' | 'manual'>('idle');
  const reset = useSubmit();

  useEffect(() => {
    if (copyState !== 'copied') return;
    const timer = setTimeout(() => setCopyState('idle'), COPIED_MS);
    return () => clearTimeout(timer);
  }, [copyState]);

  if (group.data === undefined) return group.isError ? null : <Spinner />;
  // The instance may hide invitation links (docs/api §2.3): then there is no key to show.
  if (group.data.secretKey === undefined) {
    return (
      <div className={`${ui.card} ${styles.panel}`}>
        <p>{t('group.invite_disabled')}</p>
      </div>
    );
  }
  const link = absoluteUrl(`/invitation/${group.data.secretKey}`);

  // The clipboard API needs a secure context and permission; without it the link is selected so
  // the person can copy it themselves.
  const selectByHand = () => {
    setCopyState('manual');
    field.current?.focus();
    field.current?.select();
  };
  const copy = () => {
    if (navigator.clipboard === undefined) return selectByHand();
    navigator.clipboard.writeText(link).then(() => setCopyState('copied'), selectByHand);
  };

  const resetLink = () => {
    if (!window.confirm(t('group_settings.reset_confirm'))) return;
    void reset.run(async () => {
      const { inviteKey } = await call('POST /api/groups/{id}/reset-invite-key', { params: { id: groupId } });
      client.setQueryData<Group>(keys.group(groupId), (cached) => cached && { ...cached, secretKey: inviteKey });
      setCopyState('idle');
      showAlert('group_settings.reset_done');
    });
  };

  return (
    <div className={`${ui.card} ${styles.panel}`}>
      <p>{t('group.invite_explanation')}</p>
      <div className={ui.row}>
        <input
          ref={field}
          className={`${ui.input} ${styles.link}`}
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
      <p className={styles.status} role="status">
        {copyState === 'copied' && t('group.invite_copied')}
        {copyState === 'manual' && t('group.copy_by_hand')}
      </p>
      {allowReset && (
        <button type="button" className={ui.buttonSecondary} onClick={resetLink} disabled={reset.pending}>
          {t('group_settings.reset')}
        </button>
      )}
    </div>
  );
}
