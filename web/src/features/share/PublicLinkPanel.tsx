import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import type { Message } from '@kith/common';
import { keys } from '../../api/queries';
import { Spinner } from '../../components/Spinner';
import { call } from '../../lib/api';
import { errorText } from '../../lib/errors';
import { useTranslation } from '../../lib/i18n';
import { showAlert, showError } from '../../lib/notify';
import ui from '../../styles/ui.module.css';
import styles from './PublicLinkPanel.module.css';

/** Marks the cached message public or not, so its badge follows at once. */
function setPublic(client: ReturnType<typeof useQueryClient>, id: string, isPublic: boolean) {
  client.setQueryData<Message>(keys.message(id), (message) => (message ? { ...message, isPublic } : message));
}

/**
 * A message's public link (docs/api §6.6, §11.3): made (or read back, there is only one) when the
 * panel opens, copied to the clipboard, or revoked after a confirmation. When the clipboard is not
 * available the address stays selected in its field, to be copied by hand.
 */
export function PublicLinkPanel({ message, onClose }: { message: Message; onClose: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [url, setUrl] = useState<string | null>(null);
  const [copyHint, setCopyHint] = useState(false);
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  const titleId = useId();

  useEffect(() => {
    const controller = new AbortController();
    call('GET /api/messages/{id}/get-public-link', { params: { id: message.id }, signal: controller.signal }).then(
      (answer) => {
        setUrl(answer.url);
        setPublic(client, message.id, true);
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        showError(errorText(t, error));
        onClose();
      },
    );
    return () => controller.abort();
  }, [client, message.id, onClose, t]);

  const copy = async () => {
    if (url === null) return;
    try {
      await navigator.clipboard.writeText(url);
      showAlert('share.link_copied');
      setCopyHint(false);
    } catch {
      // No clipboard (an insecure origin, a refused permission): select it for the person to copy.
      setCopyHint(true);
      field.current?.focus();
      field.current?.select();
    }
  };

  const revoke = async () => {
    if (!window.confirm(t('share.ask_revoke'))) return;
    setBusy(true);
    try {
      await call('DELETE /api/messages/{id}/public-link', { params: { id: message.id } });
    } catch (error) {
      showError(errorText(t, error));
      setBusy(false);
      return;
    }
    setPublic(client, message.id, false);
    showAlert('share.link_revoked');
    onClose();
  };

  return (
    <section className={styles.panel} aria-labelledby={titleId}>
      <h2 id={titleId} className={styles.title}>
        {t('share.public_link')}
      </h2>
      <p className={ui.muted}>{t('share.public_link_explanation')}</p>
      {url === null ? (
        <Spinner small />
      ) : (
        <>
          <input
            ref={field}
            className={ui.input}
            readOnly
            value={url}
            aria-label={t('share.public_link')}
            onFocus={(event) => event.target.select()}
          />
          {copyHint && (
            <p className={ui.muted} role="status">
              {t('share.copy_by_hand')}
            </p>
          )}
          <div className={ui.row}>
            <button type="button" className={ui.button} onClick={() => void copy()}>
              {t('share.copy')}
            </button>
            <button type="button" className={ui.buttonDanger} onClick={() => void revoke()} disabled={busy}>
              {t('share.revoke')}
            </button>
            <button type="button" className={ui.buttonSecondary} onClick={onClose}>
              {t('share.close')}
            </button>
          </div>
        </>
      )}
    </section>
  );
}
