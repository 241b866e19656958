import type { Message } from '@kith/common';
import { firstUrl } from './links';
import { Files } from './Files';
import { LinkCard } from './LinkCard';
import { RichText } from './RichText';
import styles from './MessageContent.module.css';

/**
 * Title, text, files and the first link's card of a message. `groupId` links its hashtags to the
 * group's search; the public page passes none. `meId` marks the reader's own @mentions.
 */
export function MessageContent({
  message,
  groupId,
  meId,
}: {
  message: Pick<Message, 'data' | 'files'> & Partial<Pick<Message, 'mentions'>>;
  groupId?: string;
  meId?: string;
}) {
  const text = message.data.text ?? '';
  const url = message.data.no_embed ? null : firstUrl(text);
  return (
    <div className={styles.content}>
      {message.data.title && <h2 className={styles.title}>{message.data.title}</h2>}
      {text !== '' && (
        <RichText className={styles.text} text={text} groupId={groupId} mentions={message.mentions} meId={meId} />
      )}
      {url !== null && <LinkCard url={url} />}
      <Files files={message.files} />
    </div>
  );
}
