import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { useNavigate } from 'react-router';
import { keys, storeWrittenMessage, useInfo, useMe } from '../../api/queries';
import type { Message } from '@kith/common';
import { Dropdown } from '../../components/Dropdown';
import { useTranslation } from '../../lib/i18n';
import { BookmarkToggle } from '../bookmarks/BookmarkToggle';
import { Writer } from '../composer/Writer';
import { PublicLinkPanel } from '../share/PublicLinkPanel';
import { usePin } from '../pins/usePin';
import { MessageContent } from './MessageContent';
import { MessageHead } from './MessageHead';
import { Reactions } from './Reactions';
import { useMessageActions } from './useMessageActions';
import styles from './MessageView.module.css';

interface MessageViewProps {
  message: Message;
  /** Called after the message was deleted. */
  onDeleted?: () => void;
}

/**
 * One message in view or edit mode; deleted placeholders show as such (product spec §4). Edit,
 * delete, publish and pin are offered as the server's `message.can` allows (only the author, publish
 * only for a reply not yet on the group page, pin for any member on a message of the group page):
 * the client does not decide it. Every member may
 * bookmark it, share it to another of their groups (when they have one) and manage its public link
 * (when the instance shows public links).
 */
export function MessageView({ message, onDeleted }: MessageViewProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const navigate = useNavigate();
  const { remove, publish } = useMessageActions();
  const pin = usePin();
  const [editing, setEditing] = useState(false);
  const [linkOpen, setLinkOpen] = useState(false);
  const closeLink = useCallback(() => setLinkOpen(false), []);
  const { data: me } = useMe();
  const { data: info } = useInfo();

  if (message.isDeleted) {
    return (
      <div className={styles.deleted}>
        <MessageHead message={message} />
        <p>{t('message.deleted')}</p>
      </div>
    );
  }

  const { can } = message;
  // Sharing is to another group: offered only to someone in more than one (product spec §2).
  const canShare = (me?.groups.length ?? 0) > 1;
  const canLink = info?.show.public_links === true;
  const menu =
    can.edit || can.delete || can.publish || can.pin || canShare || canLink ? (
      <Dropdown align="right" ariaLabel={t('message.actions')} label={<span aria-hidden="true">⋯</span>}>
        {(close) => (
          <>
            {canShare && (
              <button
                type="button"
                className={styles.item}
                onClick={() => {
                  close();
                  void navigate(`/share?message=${encodeURIComponent(message.id)}`);
                }}
              >
                {t('share.to_group')}
              </button>
            )}
            {canLink && (
              <button
                type="button"
                className={styles.item}
                onClick={() => {
                  close();
                  setLinkOpen(true);
                }}
              >
                {t('share.public_link')}
              </button>
            )}
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
            {can.pin && (
              <button
                type="button"
                className={styles.item}
                onClick={() => {
                  close();
                  void pin(message, !message.pinnedInGroup);
                }}
              >
                {message.pinnedInGroup ? t('pins.unpin') : t('pins.pin')}
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
    ) : null;
  const actions = (
    <div className={styles.actions}>
      <BookmarkToggle messageId={message.id} />
      {menu}
    </div>
  );

  return (
    <div>
      <MessageHead message={message} actions={actions} />
      {linkOpen && !editing && <PublicLinkPanel message={message} onClose={closeLink} />}
      {editing ? (
        <Writer
          groupId={message.group?.id ?? null}
          parentId={message.parent?.id}
          message={message}
          autoFocus
          onCancel={() => setEditing(false)}
          onDone={(saved) => {
            storeWrittenMessage(client, saved);
            if (saved.group) void client.invalidateQueries({ queryKey: keys.feed(saved.group.id) });
            setEditing(false);
          }}
        />
      ) : (
        <>
          <MessageContent message={message} groupId={message.group?.id} meId={me?.id} />
          <Reactions messageId={message.id} reactions={message.reactions} />
        </>
      )}
    </div>
  );
}
