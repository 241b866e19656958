import { useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { Spinner } from '../components/Spinner';
import { call } from '../lib/api';
import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';

/**
 * /stop-notification-emails[/{userId}/{token}]: calls the endpoint of the same path on load and
 * says whether it worked (product spec §2; docs/api §3.6).
 */
export default function StopNotificationEmails() {
  const { t } = useTranslation();
  const { userId, token } = useParams();
  const [state, setState] = useState<'loading' | 'done' | 'failed'>('loading');
  const called = useRef(false);

  useEffect(() => {
    if (called.current) return;
    called.current = true;
    // From a digest's link (user and token), or signed in (the caller's own e-mails).
    const stopping =
      userId !== undefined && token !== undefined
        ? call('GET /api/stop-notification-emails/{userId}/{token}', { params: { userId, token } })
        : call('GET /api/stop-notification-emails');
    stopping.then(
      () => setState('done'),
      () => setState('failed'),
    );
  }, [userId, token]);

  return (
    <main className={ui.narrow}>
      <h1 className={ui.title}>{t('stop_emails.title')}</h1>
      <div className={ui.card} role="status">
        {state === 'loading' && <Spinner />}
        {state === 'done' && <p>{t('stop_emails.done')}</p>}
        {state === 'failed' && <p className={ui.error}>{t('errors.generic')}</p>}
        {state !== 'loading' && <Link to="/">{t('error_page.home')}</Link>}
      </div>
    </main>
  );
}
