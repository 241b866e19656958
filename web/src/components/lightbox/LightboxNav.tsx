import type { JSX } from 'react';
import { useTranslation } from '../../lib/i18n';
import { ICONS, IconButton } from './Icon.tsx';
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
      <IconButton
        className={`${styles.button} ${styles.nav} ${styles.previous}`}
        label={t('lightbox.previous')}
        icon={ICONS.previous}
        disabled={!props.hasPrevious}
        onClick={props.onPrevious}
      />
      <IconButton
        className={`${styles.button} ${styles.nav} ${styles.next}`}
        label={t('lightbox.next')}
        icon={ICONS.next}
        disabled={!props.hasNext}
        onClick={props.onNext}
      />
    </>
  );
}
