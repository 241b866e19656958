import type { JSX } from 'react';
import { useTranslation } from '../../lib/i18n';
import { ICONS, Icon } from './Icon.tsx';
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
        <button
          type="button"
          className={styles.button}
          aria-label={t('lightbox.zoom_out')}
          title={t('lightbox.zoom_out')}
          disabled={!props.canZoomOut}
          onClick={props.onZoomOut}
        >
          <Icon path={ICONS.zoomOut} />
        </button>
        <button
          type="button"
          className={styles.button}
          aria-label={t('lightbox.zoom_in')}
          title={t('lightbox.zoom_in')}
          disabled={!props.canZoomIn}
          onClick={props.onZoomIn}
        >
          <Icon path={ICONS.zoomIn} />
        </button>
        <button
          type="button"
          className={styles.button}
          aria-label={t('lightbox.close')}
          title={t('lightbox.close')}
          onClick={props.onClose}
        >
          <Icon path={ICONS.close} />
        </button>
      </div>
    </div>
  );
}
