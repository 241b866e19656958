import type { JSX } from 'react';
import { useTranslation } from '../../lib/i18n';
import { ICONS, IconButton } from './Icon.tsx';
import styles from './Lightbox.module.css';

export interface LightboxToolbarProps {
  /** 0-based index of the image shown. */
  index: number;
  total: number;
  canZoomIn: boolean;
  canZoomOut: boolean;
  onZoomIn: () => void;
  onZoomOut: () => void;
  onClose: () => void;
}

/** The lightbox's top bar: "3 / 7", zoom out, zoom in and close. */
export function LightboxToolbar(props: LightboxToolbarProps): JSX.Element {
  const { t } = useTranslation();
  const { index, total } = props;
  return (
    <div className={styles.toolbar}>
      <p className={styles.counter} aria-live="polite">
        {t('lightbox.counter', { current: Math.min(index + 1, total), total })}
      </p>
      <div className={styles.actions}>
        <IconButton
          label={t('lightbox.zoom_out')}
          icon={ICONS.zoomOut}
          disabled={!props.canZoomOut}
          onClick={props.onZoomOut}
        />
        <IconButton
          label={t('lightbox.zoom_in')}
          icon={ICONS.zoomIn}
          disabled={!props.canZoomIn}
          onClick={props.onZoomIn}
        />
        <IconButton label={t('lightbox.close')} icon={ICONS.close} onClick={props.onClose} />
      </div>
    </div>
  );
}
