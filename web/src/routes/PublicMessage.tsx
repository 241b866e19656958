import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { LoadError } from '../components/LoadError';
import { Spinner } from '../components/Spinner';
import { MessageContent } from '../features/messages/MessageContent';
import { call } from '../lib/api';
import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';

/** /public/{token}: a shared message, read-only, without avatar, author or actions. */
export default function PublicMessage() {
  const { token = '' } = useParams();
  const { t } = useTranslation();
  const message = useQuery({
    queryKey: ['public', token],
    queryFn: ({ signal }) => call('GET /api/public/{token}', { params: { token }, signal }),
  });
  if (message.isError) return <LoadError error={message.error} />;
  if (message.data === undefined) return <Spinner />;
  return (
    <main className={ui.page}>
      {/* The page's one heading, for screen readers: the visible title is the message's own. */}
      <h1 className="visually-hidden">{message.data.data.title?.trim() || t('message.untitled')}</h1>
      <article className={ui.card}>
        <MessageContent message={message.data} />
      </article>
      <p className={ui.muted}>{t('public.shared_with_kith')}</p>
    </main>
  );
}
