import { useTranslation } from '../../lib/i18n';
import styles from './PinnedMark.module.css';

/** The pin drawn beside the word: decoration only, the word says it (issue 20). */
function PinIcon() {
  return (
    <svg width="14" height="14" viewBox="0 0 24 24" aria-hidden="true">
      <path
        d="M9 3h6l-1 6 4 4v2h-5v6l-1 1-1-1v-6H6v-2l4-4-1-6Z"
        fill="currentColor"
        stroke="currentColor"
        strokeWidth="1"
        strokeLinejoin="round"
      />
    </svg>
  );
}

/** "Pinned", with a pin: on a pinned message's card and page. Text, so screen readers say it too. */
export function PinnedMark() {
  const { t } = useTranslation();
  return (
    <span className={styles.mark}>
      <PinIcon />
      {t('pins.pinned')}
    </span>
  );
}
