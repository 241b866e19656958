import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { LoadError } from '../components/LoadError';
import { Spinner } from '../components/Spinner';
import { call } from '../lib/api';
import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';

/** /groups/{id}/random: opens a random message of the group. */
export default function RandomMessage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { t } = useTranslation();
  const [state, setState] = useState<'loading' | 'empty' | { error: unknown }>('loading');
  const called = useRef(false);

  useEffect(() => {
    if (called.current) return;
    called.current = true;
    call('GET /api/groups/{id}/random', { params: { id } }).then(
      (message) => (message ? void navigate(`/messages/${message.id}`, { replace: true }) : setState('empty')),
      (error: unknown) => setState({ error }),
    );
  }, [id, navigate]);

  if (state === 'loading') return <Spinner />;
  if (state === 'empty')
    return (
      <div className={ui.page}>
        <p>{t('feed.empty')}</p>
        <Link to={`/groups/${id}`}>{t('feed.back_to_group')}</Link>
      </div>
    );
  return <LoadError error={state.error} />;
}
