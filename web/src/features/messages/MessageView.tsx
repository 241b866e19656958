import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { keys } from '../../api/queries';
import type { Message } from '@kith/common';
import { Dropdown } from '../../components/Dropdown';
import { useTranslation } from '../../lib/i18n';
import { Writer } from '../composer/Writer';
import { MessageContent } from './MessageContent';
import { MessageHead } from './MessageHead';
import { useMessageActions } from './useMessageActions';
import styles from './MessageView.module.css';

interface MessageViewProps {
  message: Message;
  /** Called after the message was deleted. */
  onDeleted?: () => void;
}

/**
 * One message in view or edit mode; deleted placeholders show as such (product spec §4). Edit,
 * delete and publish are offered as the server's `message.can` allows (only the author, publish
 * only for a reply not yet on the group page): the client does not decide it.
 */
export function MessageView({ message, onDeleted }: MessageViewProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const { remove, publish } = useMessageActions();
  const [editing, setEditing] = useState(false);

  if (message.isDeleted) {
    return (
      <div className={styles.deleted}>
        <MessageHead message={message} />
        <p>{t('message.deleted')}</p>
      </div>
    );
  }

  const { can } = message;
  const actions =
    can.edit || can.delete || can.publish ? (
      <Dropdown align="right" ariaLabel={t('message.actions')} label={<span aria-hidden="true">⋯</span>}>
        {(close) => (
          <>
            {can.edit && (
              <button
                type="button"
                className={styles.item}
                onClick={() => {
                  close();
                  setEditing(true);
                }}
              >
                {t('message.edit')}
              </button>
            )}
            {can.publish && (
              <button
                type="button"
                className={styles.item}
                onClick={() => {
                  close();
                  void publish(message);
                }}
              >
                {t('message.publish')}
              </button>
            )}
            {can.delete && (
              <button
                type="button"
                className={`${styles.item} ${styles.danger}`}
                onClick={() => {
                  close();
                  void remove(message).then((done) => done && onDeleted?.());
                }}
              >
                {t('message.delete')}
              </button>
            )}
          </>
        )}
      </Dropdown>
    ) : undefined;

  return (
    <div>
      <MessageHead message={message} actions={actions} />
      {editing ? (
        <Writer
          groupId={message.group?.id ?? null}
          parentId={message.parent?.id}
          message={message}
          autoFocus
          onCancel={() => setEditing(false)}
          onDone={(saved) => {
            client.setQueryData(keys.message(saved.id), saved);
            if (saved.group) void client.invalidateQueries({ queryKey: keys.feed(saved.group.id) });
            setEditing(false);
          }}
        />
      ) : (
        <MessageContent message={message} groupId={message.group?.id} />
      )}
    </div>
  );
}
