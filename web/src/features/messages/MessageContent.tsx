import type { Message } from '@kith/common';
import { firstUrl } from './links';
import { Files } from './Files';
import { LinkCard } from './LinkCard';
import { RichText } from './RichText';
import styles from './MessageContent.module.css';

/**
 * Title, text, files and the first link's card of a message. `groupId` links its hashtags to the
 * group's search; the public page passes none.
 */
export function MessageContent({ message, groupId }: { message: Pick<Message, 'data' | 'files'>; groupId?: string }) {
  const text = message.data.text ?? '';
  const url = message.data.no_embed ? null : firstUrl(text);
  return (
    <div className={styles.content}>
      {message.data.title && <h2 className={styles.title}>{message.data.title}</h2>}
      {text !== '' && <RichText className={styles.text} text={text} groupId={groupId} />}
      {url !== null && <LinkCard url={url} />}
      <Files files={message.files} />
    </div>
  );
}
