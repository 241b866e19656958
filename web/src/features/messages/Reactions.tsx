import { useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import type { ReactionSummary } from '@kith/common';
import { useInfo } from '../../api/queries';
import { Dropdown } from '../../components/Dropdown';
import { call } from '../../lib/api';
import { errorText } from '../../lib/errors';
import { useTranslation } from '../../lib/i18n';
import { showError } from '../../lib/notify';
import { COMMON_EMOJI, MORE_EMOJI } from './emoji';
import { applyReactions } from './reactionCache';
import { useReactionNames } from './reactionNames';
import styles from './Reactions.module.css';

/** A press this long on a touch screen shows who reacted instead of toggling. */
const LONG_PRESS_MS = 500;

function SmileyPlus() {
  return (
    <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true">
      <path
        d="M20.5 11A8.5 8.5 0 1 1 13 2.6M8.5 14.5a4.5 4.5 0 0 0 7 0M9 9.5h.01M15 9.5h.01M19 2v6M16 5h6"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
      />
    </svg>
  );
}

/** "Ann, Bob and Eve", joined as the interface language joins names. */
/** The picker: the common emoji, and a curated grid behind "more". */
function Picker({ onPick, disabled }: { onPick: (emoji: string) => void; disabled: boolean }) {
  const { t } = useTranslation();
  const [more, setMore] = useState(false);
  const shown = more ? [...COMMON_EMOJI, ...MORE_EMOJI] : COMMON_EMOJI;
  return (
    <Dropdown label={<SmileyPlus />} ariaLabel={t('reactions.add')} buttonClassName={styles.add}>
      {(close) => (
        <div className={styles.picker} role="group" aria-label={t('reactions.add')}>
          <div className={styles.grid}>
            {shown.map((emoji) => (
              <button
                key={emoji}
                type="button"
                className={styles.choice}
                aria-label={t('reactions.react_with', { emoji })}
                disabled={disabled}
                onClick={() => {
                  close();
                  onPick(emoji);
                }}
              >
                {emoji}
              </button>
            ))}
          </div>
          {!more && (
            <button type="button" className={styles.more} onClick={() => setMore(true)}>
              {t('reactions.more')}
            </button>
          )}
        </div>
      )}
    </Dropdown>
  );
}

/**
 * The reaction bar under a message or comment (issue 20): one button per emoji with its count,
 * pressed when the signed-in user used it (a press takes it back, or adds it); who reacted shows on
 * hover, on keyboard focus and on a long press on touch screens; the picker adds another emoji.
 * The answer of each call, and the live events, update every cache holding the message.
 */
export function Reactions({ messageId, reactions }: { messageId: string; reactions: ReactionSummary[] }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const { data: info } = useInfo();
  const names = useReactionNames();
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState<string | null>(null);
  const press = useRef<{ timer: ReturnType<typeof setTimeout> | null; long: boolean }>({ timer: null, long: false });
  const tipId = useId();

  if (info?.reactions === false) return null;

  const send = async (emoji: string, summary?: ReactionSummary) => {
    if (busy) return;
    setBusy(true);
    try {
      const answer =
        summary?.mine === true && summary.reactionId !== null
          ? await call('DELETE /api/messages/{id}/reactions/{reactionId}', {
              params: { id: messageId, reactionId: summary.reactionId },
            })
          : await call('POST /api/messages/{id}/reactions', { params: { id: messageId }, body: { reaction: emoji } });
      applyReactions(client, messageId, answer);
    } catch (error) {
      showError(errorText(t, error));
    } finally {
      setBusy(false);
    }
  };

  const endPress = () => {
    if (press.current.timer !== null) clearTimeout(press.current.timer);
    press.current.timer = null;
  };
  const current = reactions.find((r) => r.emoji === shown);

  return (
    <div className={styles.bar}>
      {reactions.map((summary) => (
        <button
          key={summary.emoji}
          type="button"
          className={summary.mine ? `${styles.reaction} ${styles.mine}` : styles.reaction}
          aria-pressed={summary.mine}
          aria-label={t('reactions.label', { emoji: summary.emoji, count: summary.count })}
          aria-describedby={shown === summary.emoji ? tipId : undefined}
          title={t('reactions.who', { emoji: summary.emoji, names: names(summary) })}
          disabled={busy}
          onMouseEnter={() => setShown(summary.emoji)}
          onMouseLeave={() => setShown(null)}
          onFocus={() => setShown(summary.emoji)}
          onBlur={() => setShown(null)}
          onPointerDown={(event) => {
            // Every new press starts afresh: a long press whose click never came swallows nothing.
            press.current.long = false;
            endPress();
            if (event.pointerType !== 'touch') return;
            press.current.timer = setTimeout(() => {
              press.current.long = true;
              setShown(summary.emoji);
            }, LONG_PRESS_MS);
          }}
          onPointerUp={endPress}
          onPointerCancel={endPress}
          onContextMenu={(event) => {
            // A long press opens the browser's menu on some phones: the list of names is the answer.
            if (press.current.long) event.preventDefault();
          }}
          onClick={() => {
            if (press.current.long) {
              press.current.long = false;
              return;
            }
            void send(summary.emoji, summary);
          }}
        >
          <span aria-hidden="true">{summary.emoji}</span>
          <span aria-hidden="true" className={styles.count}>
            {summary.count}
          </span>
        </button>
      ))}
      {/* An emoji already used is added again: the server keeps one, so picking it changes nothing. */}
      <Picker disabled={busy} onPick={(emoji) => void send(emoji)} />
      {current !== undefined && current.users.length > 0 && (
        <div id={tipId} role="tooltip" className={styles.tip}>
          {t('reactions.who', { emoji: current.emoji, names: names(current) })}
        </div>
      )}
    </div>
  );
}
