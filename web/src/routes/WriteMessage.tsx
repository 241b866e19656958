import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { keys, useMe } from '../api/queries';
import { Writer } from '../features/composer/Writer';
import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';

/** /groups/{id}/write: a new message; after sending, the message opens. */
export default function WriteMessage() {
  const { id = '' } = useParams();
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const { data: me } = useMe();
  const group = me?.groups.find((g) => g.id === id);
  return (
    <div className={ui.page}>
      <div className={ui.card}>
        <h1 className={ui.title}>{group ? t('composer.new_in_group', { group: group.name }) : t('composer.new')}</h1>
        <Writer
          groupId={group ? id : null}
          autoFocus
          onCancel={() => void navigate(`/groups/${id}`)}
          onDone={(message) => {
            client.setQueryData(keys.message(message.id), message);
            void client.invalidateQueries({ queryKey: keys.feed(id) });
            void navigate(`/messages/${message.id}`, { replace: true });
          }}
        />
      </div>
    </div>
  );
}
