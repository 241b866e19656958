import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Navigate, useNavigate, useParams } from 'react-router';
import { keys } from '../api/queries';
import { Spinner } from '../components/Spinner';
import { useApiKey } from '../features/layout/AppLayout';
import { call } from '../lib/api';
import { errorText } from '../lib/errors';
import { useTranslation } from '../lib/i18n';
import { showError } from '../lib/notify';

/** /invitation/{key}: a signed-in user joins and goes to /; a visitor signs up with the key. */
export default function Invitation() {
  const { key = '' } = useParams();
  const apiKey = useApiKey();
  const navigate = useNavigate();
  const client = useQueryClient();
  const { t } = useTranslation();
  const started = useRef(false);

  useEffect(() => {
    if (apiKey === null || started.current) return;
    started.current = true;
    call('POST /api/groups/invitation/{key}', { params: { key } })
      .then(async () => {
        await client.invalidateQueries({ queryKey: keys.me });
        void navigate('/', { replace: true });
      })
      .catch((error: unknown) => {
        showError(errorText(t, error));
        void navigate('/', { replace: true });
      });
  }, [apiKey, key, client, navigate, t]);

  if (apiKey === null) return <Navigate to={`/signup?inviteKey=${encodeURIComponent(key)}`} replace />;
  return <Spinner />;
}
