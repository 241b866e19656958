import type { JSX } from 'react';
import { useTranslation } from '../../lib/i18n';
import { ICONS, Icon } from './Icon.tsx';
import styles from './Lightbox.module.css';

export interface LightboxNavProps {
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
}

/** The previous and next buttons at the lightbox's sides. */
export function LightboxNav(props: LightboxNavProps): JSX.Element {
  const { t } = useTranslation();
  return (
    <>
      <button
        type="button"
        className={`${styles.button} ${styles.nav} ${styles.previous}`}
        aria-label={t('lightbox.previous')}
        title={t('lightbox.previous')}
        disabled={!props.hasPrevious}
        onClick={props.onPrevious}
      >
        <Icon path={ICONS.previous} />
      </button>
      <button
        type="button"
        className={`${styles.button} ${styles.nav} ${styles.next}`}
        aria-label={t('lightbox.next')}
        title={t('lightbox.next')}
        disabled={!props.hasNext}
        onClick={props.onNext}
      >
        <Icon path={ICONS.next} />
      </button>
    </>
  );
}
