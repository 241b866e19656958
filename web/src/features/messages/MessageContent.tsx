import type { Message } from '@kith/common';
import { firstUrl } from './links';
import { Files } from './Files';
import { LinkCard } from './LinkCard';
import { RichText } from './RichText';
import styles from './MessageContent.module.css';

/** Title, text, files and the first link's card of a message. */
export function MessageContent({ message }: { message: Pick<Message, 'data' | 'files'> }) {
  const text = message.data.text ?? '';
  const url = message.data.no_embed ? null : firstUrl(text);
  return (
    <div className={styles.content}>
      {message.data.title && <h2 className={styles.title}>{message.data.title}</h2>}
      {text !== '' && <RichText className={styles.text} text={text} />}
      {url !== null && <LinkCard url={url} />}
      <Files files={message.files} />
    </div>
  );
}
