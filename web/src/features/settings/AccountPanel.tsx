import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { Me } from '@kith/common';
import { useSubmit } from '../../hooks/useSubmit';
import { call } from '../../lib/api';
import { useTranslation } from '../../lib/i18n';
import { clearSession, getApiKey } from '../../lib/session';
import ui from '../../styles/ui.module.css';
import styles from './Settings.module.css';

/**
 * Security: the API key (shown on request, and reset) and deleting the account. Both sign the
 * person out here; other tabs and devices follow on their next call or through the live stream,
 * which the server refuses with `invalid_api_key` once the old key is gone.
 */
export function AccountPanel({ me }: { me: Me }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const navigate = useNavigate();
  const { pending, run } = useSubmit({ lockAfterSuccess: true });
  const [apiKey] = useState(getApiKey);

  const signOut = () => {
    clearSession();
    client.clear();
    void navigate('/login', { replace: true });
  };

  const resetKey = () => {
    if (!window.confirm(t('settings.api_key_reset_confirm'))) return;
    void run(async () => {
      // The new key is not kept: the reset signs out everywhere, this tab included (product spec §6).
      await call('POST /api/users/{id}/reset-api-key', { params: { id: me.id } });
      signOut();
    });
  };

  const deleteAccount = () => {
    if (!window.confirm(t('settings.are_you_sure'))) return;
    void run(async () => {
      await call('DELETE /api/users/{id}', { params: { id: me.id } });
      signOut();
    });
  };

  return (
    <div className={styles.sections}>
      <section className={styles.section} aria-labelledby="settings-api-key">
        <h2 id="settings-api-key" className={styles.heading}>
          {t('settings.api_key_title')}
        </h2>
        <p className={ui.muted}>{t('settings.api_key_explanation')}</p>
        {apiKey !== null && (
          <details className={styles.details}>
            <summary>{t('settings.api_key_show')}</summary>
            <code className={styles.key}>{apiKey}</code>
          </details>
        )}
        <p className={ui.muted}>{t('settings.api_key_reset_explanation')}</p>
        <div>
          <button type="button" className={ui.buttonSecondary} disabled={pending} onClick={resetKey}>
            {t('settings.api_key_reset')}
          </button>
        </div>
      </section>
      <section className={styles.section} aria-labelledby="settings-delete">
        <h2 id="settings-delete" className={styles.heading}>
          {t('settings.delete_title')}
        </h2>
        <p className={ui.muted}>{t('settings.delete_explanation')}</p>
        <div>
          <button type="button" className={ui.buttonDanger} disabled={pending} onClick={deleteAccount}>
            {t('settings.delete')}
          </button>
        </div>
      </section>
    </div>
  );
}
