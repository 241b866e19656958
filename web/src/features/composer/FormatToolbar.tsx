import { useState, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { useTranslation } from '../../lib/i18n';
import { applyEdit, formatEdit, type Edit, type FormatAction } from './formatting';
import styles from './FormatToolbar.module.css';

/**
 * Applies an edit to the textarea. `insertText` goes through the browser's editing, so Ctrl+Z
 * undoes it and React sees the input event; where it is missing (or refused) the text is set
 * directly and handed to `onChange`. Then the edit's selection is made and the field focused.
 */
export function applyToTextarea(field: HTMLTextAreaElement, edit: Edit, onChange: (value: string) => void): void {
  const expected = applyEdit(field.value, edit);
  field.focus();
  field.setSelectionRange(edit.from, edit.to);
  let done: boolean;
  try {
    done = typeof document.execCommand === 'function' && document.execCommand('insertText', false, edit.insert);
  } catch {
    done = false;
  }
  if (!done || field.value !== expected) {
    field.value = expected;
    onChange(expected);
  }
  field.setSelectionRange(edit.select.start, edit.select.end);
}

/** Runs a formatting action on the textarea. */
export function runFormat(
  field: HTMLTextAreaElement,
  action: FormatAction,
  linkText: string,
  onChange: (value: string) => void,
): void {
  const edit = formatEdit(action, field.value, { start: field.selectionStart, end: field.selectionEnd }, linkText);
  applyToTextarea(field, edit, onChange);
}

const isApple = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/** How a shortcut reads on this system: ⌘B on Apple devices, Ctrl+B elsewhere. */
function shortcutLabel(key: string): string {
  return isApple ? `⌘${key}` : `Ctrl+${key}`;
}

const ICON = { width: 20, height: 20, viewBox: '0 0 24 24', 'aria-hidden': true, focusable: false } as const;
const STROKE = {
  fill: 'none',
  stroke: 'currentColor',
  strokeWidth: 2,
  strokeLinecap: 'round',
  strokeLinejoin: 'round',
} as const;

const BUTTONS: { action: FormatAction; key?: string; icon: ReactNode }[] = [
  {
    action: 'bold',
    key: 'B',
    icon: (
      <svg {...ICON}>
        <path {...STROKE} strokeWidth={2.6} d="M7 5h6a3.5 3.5 0 0 1 0 7H7zM7 12h7a3.5 3.5 0 0 1 0 7H7z" />
      </svg>
    ),
  },
  {
    action: 'italic',
    key: 'I',
    icon: (
      <svg {...ICON}>
        <path {...STROKE} d="M10 5h8M6 19h8M15 5l-6 14" />
      </svg>
    ),
  },
  {
    action: 'bullets',
    icon: (
      <svg {...ICON}>
        <path {...STROKE} d="M9 6h11M9 12h11M9 18h11" />
        <circle cx="4.5" cy="6" r="1.5" fill="currentColor" />
        <circle cx="4.5" cy="12" r="1.5" fill="currentColor" />
        <circle cx="4.5" cy="18" r="1.5" fill="currentColor" />
      </svg>
    ),
  },
  {
    action: 'numbers',
    icon: (
      <svg {...ICON}>
        <path {...STROKE} d="M10 6h10M10 12h10M10 18h10" />
        <path
          {...STROKE}
          strokeWidth={1.6}
          d="M4 4.5l1.5-1v5M3.5 10.5a1.5 1.5 0 0 1 3 .3L3.5 14.5h3M3.5 16.5h3l-1.6 1.8a1.5 1.5 0 1 1-1.4 2"
        />
      </svg>
    ),
  },
  {
    action: 'quote',
    icon: (
      <svg {...ICON}>
        <path {...STROKE} d="M10 7h10M10 12h10M10 17h7" />
        <path fill="currentColor" d="M3.5 5h2.5v14H3.5z" />
      </svg>
    ),
  },
  {
    action: 'link',
    key: 'K',
    icon: (
      <svg {...ICON}>
        <path
          {...STROKE}
          d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1"
        />
      </svg>
    ),
  },
];

/**
 * The formatting toolbar above the composer's text (issue 20): bold, italic, bulleted and
 * numbered lists, quote and link, each writing the markers of common/src/markup.ts into the text.
 * One tab stop; the arrow keys, Home and End move between the buttons (WAI-ARIA toolbar pattern).
 */
export function FormatToolbar({
  field,
  onChange,
  controls,
}: {
  field: RefObject<HTMLTextAreaElement | null>;
  onChange: (value: string) => void;
  /** The id of the textarea it edits. */
  controls: string;
}) {
  const { t } = useTranslation();
  const [active, setActive] = useState(0);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const moves: Record<string, number> = {
      ArrowRight: active + 1,
      ArrowLeft: active - 1,
      Home: 0,
      End: BUTTONS.length - 1,
    };
    const next = moves[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const index = (next + BUTTONS.length) % BUTTONS.length;
    setActive(index);
    event.currentTarget.querySelectorAll('button')[index]?.focus();
  };

  return (
    <div
      className={styles.toolbar}
      role="toolbar"
      aria-label={t('format.toolbar')}
      aria-controls={controls}
      onKeyDown={onKeyDown}
    >
      {BUTTONS.map(({ action, key, icon }, index) => {
        const label = t(`format.${action}`);
        return (
          <button
            key={action}
            type="button"
            className={styles.button}
            tabIndex={index === active ? 0 : -1}
            aria-label={label}
            aria-keyshortcuts={key === undefined ? undefined : `${isApple ? 'Meta' : 'Control'}+${key}`}
            title={
              key === undefined ? label : t('format.with_shortcut', { action: label, shortcut: shortcutLabel(key) })
            }
            data-format={action}
            // The textarea keeps its selection: a press must not move the focus before the edit reads it.
            onMouseDown={(event) => event.preventDefault()}
            onFocus={() => setActive(index)}
            onClick={() => {
              if (field.current !== null) runFormat(field.current, action, t('format.link_text'), onChange);
            }}
          >
            {icon}
          </button>
        );
      })}
    </div>
  );
}
