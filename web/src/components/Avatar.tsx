import { imageUrl } from '../lib/api';
import { avatarColor, initial } from './avatarColors';
import type { FileRef } from '@kith/common';
import styles from './Avatar.module.css';

interface AvatarProps {
  user: { id: string; name?: string | null; avatar?: FileRef | null } | null;
  size?: 80 | 100;
  px?: number;
}

/**
 * A user's picture, or their initial on a colour hashed from their id. A removed author (null)
 * gets the default avatar.
 */
export function Avatar({ user, size = 80, px = 40 }: AvatarProps) {
  const style = { width: px, height: px, fontSize: px * 0.45 };
  if (user === null) return <span className={`${styles.avatar} ${styles.removed}`} style={style} aria-hidden="true" />;
  if (user.avatar) {
    return (
      <img
        className={styles.avatar}
        style={style}
        src={imageUrl('crop', `${size}/${size}`, user.avatar.id)}
        alt=""
        loading="lazy"
      />
    );
  }
  return (
    <span className={styles.avatar} style={{ ...style, background: avatarColor(user.id) }} aria-hidden="true">
      {initial(user.name)}
    </span>
  );
}
