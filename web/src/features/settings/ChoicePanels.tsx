import { type FormEvent, type ReactNode, useEffect, useId, useState } from 'react';
import { Link } from 'react-router';
import {
  bcp47,
  isOfferedLanguage,
  type Language,
  LANGUAGE_NAMES,
  LANGUAGES,
  type Me,
  MENTION_EMAIL_CHOICES,
  NOTIFICATION_EMAIL_FREQUENCIES,
} from '@kith/common';
import { deviceLanguage } from '../../lib/language';
import { SaveButton } from '../../components/SaveButton';
import { setLanguage, useTranslation } from '../../lib/i18n';
import { loadTifinagh } from '../../lib/scripts';
import { PushSettings } from '../push/PushSettings';
import { applyTheme, THEME_CHOICES, themeChoice } from '../../lib/theme';
import ui from '../../styles/ui.module.css';
import { ALL_GROUPS_CHOICE, defaultChoiceChanges, defaultChoiceOf } from './settings';
import { type MeChanges, useSaveMe } from './useSaveMe';
import styles from './Settings.module.css';

interface Option<V extends string> {
  value: V;
  label: string;
  /** The language the label is written in, when it is not the interface's. */
  lang?: string;
}

interface ChoiceFormProps<V extends string> {
  me: Me;
  /** `radios` for a few choices shown at once, `select` for a long list. */
  kind: 'radios' | 'select';
  legend: string;
  hint?: ReactNode;
  options: readonly Option<V>[];
  initial: V;
  changes: (value: V) => MeChanges;
  /** Runs once the server kept the choice (switching the language or the colours at once). */
  after?: (value: V) => Promise<void> | void;
}

interface RadioChoicesProps<V extends string> {
  legend: string;
  hint?: ReactNode;
  options: readonly Option<V>[];
  value: V;
  onChange: (value: V) => void;
}

/** A few values shown at once as radio buttons, in a fieldset named by its legend. */
function RadioChoices<V extends string>({ legend, hint, options, value, onChange }: RadioChoicesProps<V>) {
  const id = useId();
  return (
    <fieldset className={styles.fieldset} aria-describedby={hint ? `${id}-hint` : undefined}>
      <legend className={styles.legend}>{legend}</legend>
      {hint && (
        <p id={`${id}-hint`} className={ui.muted}>
          {hint}
        </p>
      )}
      <div className={styles.choices}>
        {options.map((option) => (
          <label key={option.value} className={styles.choice}>
            <input
              type="radio"
              name={id}
              value={option.value}
              checked={value === option.value}
              onChange={() => onChange(option.value)}
            />
            <span lang={option.lang}>{option.label}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** One setting chosen among fixed values, saved with its own button. */
function ChoiceForm<V extends string>({
  me,
  kind,
  legend,
  hint,
  options,
  initial,
  changes,
  after,
}: ChoiceFormProps<V>) {
  const { pending, save } = useSaveMe(me.id);
  const [value, setValue] = useState<V>(initial);
  const id = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save(changes(value), () => after?.(value));
  };

  return (
    <form className={ui.form} onSubmit={submit}>
      {kind === 'radios' ? (
        <RadioChoices legend={legend} hint={hint} options={options} value={value} onChange={setValue} />
      ) : (
        <div className={ui.label}>
          <label htmlFor={`${id}-select`}>{legend}</label>
          <select
            id={`${id}-select`}
            className={ui.input}
            value={value}
            aria-describedby={hint ? `${id}-hint` : undefined}
            onChange={(event) => setValue(event.target.value as V)}
          >
            {options.map((option) => (
              <option key={option.value} value={option.value} lang={option.lang}>
                {option.label}
              </option>
            ))}
          </select>
          {hint && (
            <span id={`${id}-hint`} className={`${ui.muted} ${styles.hint}`}>
              {hint}
            </span>
          )}
        </div>
      )}
      <SaveButton pending={pending} />
    </form>
  );
}

/** A value of `data` that may be missing or unknown, else its default. */
function choiceOf<V extends string>(choices: readonly V[], current: string | undefined, fallback: V): V {
  return (choices as readonly string[]).includes(current ?? '') ? (current as V) : fallback;
}

/**
 * The notifications tab (product spec §3, §9; issue 21): what is e-mailed, in one form with one
 * Save (how often notification summaries are sent, and how mentions are), then Web Push.
 */
export function NotificationsPanel({ me }: { me: Me }) {
  const { t } = useTranslation();
  const { pending, save } = useSaveMe(me.id);
  const [frequency, setFrequency] = useState(
    choiceOf(NOTIFICATION_EMAIL_FREQUENCIES, me.data.notification_emails, 'none'),
  );
  const [mentions, setMentions] = useState(choiceOf(MENTION_EMAIL_CHOICES, me.data.mention_emails, 'with_others'));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save({ data: { notification_emails: frequency, mention_emails: mentions } });
  };

  return (
    <>
      <form className={ui.form} onSubmit={submit}>
        <RadioChoices
          legend={t('settings.notifications_legend')}
          hint={t('settings.notifications_hint')}
          options={NOTIFICATION_EMAIL_FREQUENCIES.map((value) => ({ value, label: t(`settings.frequency_${value}`) }))}
          value={frequency}
          onChange={setFrequency}
        />
        <RadioChoices
          legend={t('mentions.emails_legend')}
          hint={t('mentions.emails_hint')}
          options={MENTION_EMAIL_CHOICES.map((value) => ({ value, label: t(`mentions.emails_${value}`) }))}
          value={mentions}
          onChange={setMentions}
        />
        <SaveButton pending={pending} />
      </form>
      <PushSettings me={me} />
    </>
  );
}

/**
 * The language AppLayout applies: the account's, else the device's. Not `i18n.language`, which
 * still holds the previous one while a just-loaded account's texts download.
 */
function languageOf(me: Me): Language {
  const lang = me.data.lang;
  return lang !== undefined && isOfferedLanguage(lang) ? lang : deviceLanguage();
}

/** The interface language, each named in itself; saving switches the interface at once. */
export function LanguagePanel({ me }: { me: Me }) {
  const { t } = useTranslation();
  // Tamazight's own name is written in Tifinagh.
  useEffect(() => void loadTifinagh(), []);
  return (
    <ChoiceForm
      me={me}
      kind="select"
      legend={t('settings.language')}
      hint={t('settings.language_hint')}
      options={LANGUAGES.map((value) => ({ value, label: LANGUAGE_NAMES[value], lang: bcp47(value) }))}
      initial={languageOf(me)}
      changes={(lang) => ({ data: { lang } })}
      after={(lang) => setLanguage(lang)}
    />
  );
}

/** The colour scheme, kept in the account so that every device shows it. */
export function AppearancePanel({ me }: { me: Me }) {
  const { t } = useTranslation();
  return (
    <ChoiceForm
      me={me}
      kind="radios"
      legend={t('settings.appearance_legend')}
      hint={t('settings.appearance_hint')}
      options={THEME_CHOICES.map((value) => ({ value, label: t(`settings.theme_${value}`) }))}
      initial={themeChoice(me.data.theme)}
      changes={(theme) => ({ data: { theme } })}
      after={(theme) => applyTheme(theme)}
    />
  );
}

/** The group `/` leads to (product spec §2). */
export function DefaultGroupPanel({ me }: { me: Me }) {
  const { t } = useTranslation();
  if (me.groups.length === 0) {
    return (
      <p>
        {t('settings.no_groups')} <Link to="/create-group">{t('nav.create_group')}</Link>
      </p>
    );
  }
  return (
    <ChoiceForm
      me={me}
      kind="select"
      legend={t('settings.default_group')}
      hint={t('all_feed.default_hint')}
      options={[
        { value: ALL_GROUPS_CHOICE, label: t('all_feed.title') },
        ...me.groups.map((group) => ({ value: group.id, label: group.name })),
      ]}
      initial={defaultChoiceOf(me)}
      changes={defaultChoiceChanges}
    />
  );
}
