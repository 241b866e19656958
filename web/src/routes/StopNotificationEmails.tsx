import { useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { Spinner } from '../components/Spinner';
import { api } from '../lib/api';
import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';

/**
 * /stop-notification-emails[/{userId}/{token}]: calls GET /api plus the current path on load and
 * says whether it worked (product spec §2; contract §3.6).
 */
export default function StopNotificationEmails() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const [state, setState] = useState<'loading' | 'done' | 'failed'>('loading');
  const called = useRef(false);

  useEffect(() => {
    if (called.current) return;
    called.current = true;
    api.get(`/api${pathname}`).then(
      () => setState('done'),
      () => setState('failed'),
    );
  }, [pathname]);

  return (
    <main className={ui.narrow}>
      <div className={ui.card} role="status">
        {state === 'loading' && <Spinner />}
        {state === 'done' && <p>{t('stop_emails.done')}</p>}
        {state === 'failed' && <p className={ui.error}>{t('errors.generic')}</p>}
        {state !== 'loading' && <Link to="/">{t('error_page.home')}</Link>}
      </div>
    </main>
  );
}
