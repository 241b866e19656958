import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { keys, useMessage, useNotifications } from '../api/queries';
import type { Message } from '@kith/common';
import { LoadError } from '../components/LoadError';
import { Spinner } from '../components/Spinner';
import { Writer } from '../features/composer/Writer';
import { Breadcrumbs } from '../features/messages/Breadcrumbs';
import { Comments } from '../features/messages/Comments';
import { MessageView } from '../features/messages/MessageView';
import { useRouteState } from '../features/layout/useRouteState';
import { useNotificationActions } from '../features/notifications/useNotificationActions';
import { matchingUnread } from '../features/notifications/newness';
import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';
import styles from './MessagePage.module.css';

/** /messages/{id} and /messages/{id}/{child_id}: a message, its comments and the reply box. */
export default function MessagePage() {
  const { id = '', childId } = useParams();
  const { t } = useTranslation();
  const { backUrl } = useRouteState();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const message = useMessage(id);
  const { data: notifications } = useNotifications();
  const { markRead } = useNotificationActions();

  // Opening a message reads its notifications and those of its comments.
  const childIds = message.data?.children.map((child) => child.id).join(',') ?? '';
  useEffect(() => {
    if (notifications === undefined || message.data === undefined) return;
    const unread = matchingUnread(notifications, [id, ...(childIds === '' ? [] : childIds.split(','))]);
    if (unread.length > 0) markRead(unread.map((n) => n.id));
  }, [notifications, message.data, id, childIds, markRead]);

  if (message.isError) return <LoadError error={message.error} onRetry={() => void message.refetch()} />;
  if (message.data === undefined) return <Spinner />;
  const data = message.data;

  const onReply = (reply: Message) => {
    client.setQueryData(keys.message(reply.id), reply);
    client.setQueryData<Message>(keys.message(id), (parent) =>
      parent === undefined || parent.children.some((child) => child.id === reply.id)
        ? parent
        : { ...parent, children: [...parent.children, { id: reply.id, entityType: 'message' }] },
    );
  };

  return (
    <div className={ui.page}>
      {/* The page's one heading, for screen readers: the visible title is the message's own. */}
      <h1 className="visually-hidden">{data.data.title?.trim() || t('message.untitled')}</h1>
      <Breadcrumbs message={data} />
      <article className={ui.card}>
        <MessageView
          message={data}
          onDeleted={() =>
            void navigate(
              data.parent
                ? `/messages/${data.parent.id}`
                : (backUrl ?? (data.group ? `/groups/${data.group.id}` : '/')),
            )
          }
        />
      </article>
      <Comments key={`${id}/${childId ?? ''}`} items={data.children} focusId={childId} />
      {!data.isDeleted && (
        <div className={`${ui.card} ${styles.reply}`}>
          <Writer
            key={id}
            groupId={data.group?.id ?? null}
            parentId={id}
            compact
            autoFocus={params.get('focus') === 'reply'}
            onDone={onReply}
          />
        </div>
      )}
    </div>
  );
}
