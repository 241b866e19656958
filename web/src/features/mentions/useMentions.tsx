import { type KeyboardEvent, type RefObject, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { Mention, UserRef } from '@kith/common';
import { useGroup, useMe } from '../../api/queries';
import { Avatar } from '../../components/Avatar';
import { useTranslation } from '../../lib/i18n';
import {
  initialPicks,
  mentionIdsToSend,
  mentionQueryAt,
  suggestMembers,
  type MentionQuery,
  type PickedMention,
} from './mentions';
import styles from './Mentions.module.css';

interface Options {
  /** The group whose members may be mentioned (null: none yet). */
  groupId: string | null;
  field: RefObject<HTMLTextAreaElement | null>;
  text: string;
  setText: (text: string) => void;
  /** An edited message's stored mentions: the picks start with them. */
  initial?: readonly Mention[];
}

/**
 * @mention suggestions for a composer's text field (issue 21): typing `@` at the start of a word
 * opens a list of the group's members (loaded once, with the group, when the first `@` is typed)
 * filtered by what follows; ArrowUp/Down move, Enter or Tab insert, Escape closes the list (not
 * the composer), a tap inserts. The field follows the WAI-ARIA combobox pattern: `fieldProps` go
 * on the textarea, `list` right after it, `onKeyDown` runs before the field's other keys and says
 * whether it used the key, and `mentionIds()` gives the ids to send.
 */
export function useMentions({ groupId, field, text, setText, initial }: Options) {
  const { t } = useTranslation();
  const listId = useId();
  const [query, setQuery] = useState<MentionQuery | null>(null);
  const [active, setActive] = useState(0);
  // Escape closes the list for this `@` only; the next one opens it again.
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const [wanted, setWanted] = useState(false);
  const picks = useRef<PickedMention[]>(initialPicks(initial));
  const me = useMe();
  const group = useGroup(wanted && groupId !== null ? groupId : undefined);
  const listRef = useRef<HTMLUListElement>(null);

  const members = group.data?.users;
  const open = query !== null && query.start !== dismissedAt;
  const suggestions: UserRef[] = useMemo(
    () => (open && query !== null ? suggestMembers(members ?? [], query.query, me.data?.id ?? '') : []),
    [open, query, members, me.data?.id],
  );
  const shown = open && suggestions.length > 0;
  const current = Math.min(active, Math.max(0, suggestions.length - 1));

  /** Looks at the caret after a change, a click or a key that moves it. */
  const track = () => {
    const el = field.current;
    if (el === null || el.selectionStart !== el.selectionEnd) {
      setQuery(null);
      return;
    }
    const found = mentionQueryAt(el.value, el.selectionStart);
    if (found !== null) setWanted(true);
    if (found?.start !== query?.start || found?.query !== query?.query) setActive(0);
    setQuery(found);
    if (found === null) setDismissedAt(null);
  };

  useEffect(() => {
    // At 375 px with the on-screen keyboard up, the list is brought into sight.
    if (shown) listRef.current?.scrollIntoView?.({ block: 'nearest' });
  }, [shown]);

  const insert = (user: UserRef) => {
    const el = field.current;
    if (el === null || query === null) return;
    const end = query.start + 1 + query.query.length;
    const inserted = `@${user.name} `;
    const next = text.slice(0, query.start) + inserted + text.slice(end);
    picks.current = [...picks.current.filter((p) => p.id !== user.id), { id: user.id, names: [user.name] }];
    setText(next);
    setQuery(null);
    const caret = query.start + inserted.length;
    // After React has written the new value: the caret goes after the inserted name.
    requestAnimationFrame(() => {
      el.focus();
      el.setSelectionRange(caret, caret);
    });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!shown) return false;
    switch (event.key) {
      case 'ArrowDown':
        setActive((current + 1) % suggestions.length);
        break;
      case 'ArrowUp':
        setActive((current - 1 + suggestions.length) % suggestions.length);
        break;
      case 'Enter':
      case 'Tab': {
        if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return false;
        const user = suggestions[current];
        if (user === undefined) return false;
        insert(user);
        break;
      }
      case 'Escape':
        setDismissedAt(query?.start ?? null);
        break;
      default:
        return false;
    }
    event.preventDefault();
    // Escape closes the list only: the composer (or a dialog around it) must not hear it.
    event.stopPropagation();
    return true;
  };

  const optionId = (index: number) => `${listId}-${index}`;
  const fieldProps = {
    role: 'combobox',
    'aria-autocomplete': 'list' as const,
    'aria-expanded': shown,
    'aria-controls': listId,
    'aria-activedescendant': shown ? optionId(current) : undefined,
    onSelect: track,
    onClick: track,
    onKeyUp: (event: KeyboardEvent<HTMLTextAreaElement>) => {
      if (!['ArrowDown', 'ArrowUp', 'Enter', 'Tab', 'Escape'].includes(event.key) || !shown) track();
    },
  };

  const list = (
    <ul
      ref={listRef}
      id={listId}
      role="listbox"
      aria-label={t('mentions.suggestions')}
      className={styles.list}
      hidden={!shown}
    >
      {shown &&
        suggestions.map((user, index) => (
          <li
            key={user.id}
            id={optionId(index)}
            role="option"
            aria-selected={index === current}
            className={index === current ? `${styles.option} ${styles.active}` : styles.option}
            // The field keeps the focus (and the on-screen keyboard stays up) while a name is tapped.
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => insert(user)}
          >
            <Avatar user={user} size={80} px={28} />
            <span className={styles.name}>{user.name}</span>
          </li>
        ))}
    </ul>
  );

  return {
    fieldProps,
    list,
    onKeyDown,
    /** Call after the text changed (onChange): the list follows what is typed. */
    onTextChange: () => requestAnimationFrame(track),
    /** The ids to send with the text: the people picked whose @name it still holds. */
    mentionIds: (value: string) => mentionIdsToSend(value, picks.current),
  };
}
