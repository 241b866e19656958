import type { ReactionSummary } from '@kith/common';
import { useTranslation } from '../../lib/i18n';
import { useReactionNames } from '../messages/reactionNames';
import styles from './ReactionSummaryLine.module.css';

// Its own module, not beside the reaction bar: feed cards are on the first screen, and the bar
// (picker, emoji grid, dropdown) is needed only on a message's page.

/** The compact summary on a feed card: each emoji with its count, who reacted in the tooltip. */
export function ReactionSummaryLine({ reactions }: { reactions: ReactionSummary[] }) {
  const { t } = useTranslation();
  const names = useReactionNames();
  if (reactions.length === 0) return null;
  const text = reactions.map((r) => `${r.emoji} ${r.count}`).join(' ');
  return (
    <span
      className={styles.summary}
      role="img"
      title={reactions.map((r) => t('reactions.who', { emoji: r.emoji, names: names(r) })).join('\n')}
      aria-label={t('reactions.summary', { list: text })}
    >
      {reactions.slice(0, 3).map((r) => (
        <span key={r.emoji} aria-hidden="true">
          {r.emoji}
          <span className={styles.count}>{r.count}</span>
        </span>
      ))}
    </span>
  );
}
