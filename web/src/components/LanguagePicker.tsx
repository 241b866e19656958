import { useEffect, useId } from 'react';
import { bcp47, isOfferedLanguage, LANGUAGE_NAMES, LANGUAGES } from '@kith/common';
import { setLanguage, useTranslation } from '../lib/i18n';
import { rememberLanguage } from '../lib/language';
import { loadTifinagh } from '../lib/scripts';
import styles from './LanguagePicker.module.css';

/**
 * The language of the pages a visitor sees (sign-in, sign-up, new password): each language named
 * in itself, so a reader finds theirs whatever the page speaks. The choice switches the page at
 * once and is remembered on this device; a signed-in user's own language then takes over.
 */
export function LanguagePicker() {
  const { t, i18n } = useTranslation();
  // Tamazight's own name is written in Tifinagh.
  useEffect(() => void loadTifinagh(), []);
  const id = useId();
  return (
    <div className={styles.picker}>
      <label htmlFor={id}>{t('common.language')}</label>
      <select
        id={id}
        className={styles.select}
        value={i18n.language}
        onChange={(event) => {
          const lang = event.target.value;
          if (!isOfferedLanguage(lang)) return;
          rememberLanguage(lang);
          void setLanguage(lang);
        }}
      >
        {LANGUAGES.map((lang) => (
          <option key={lang} value={lang} lang={bcp47(lang)}>
            {LANGUAGE_NAMES[lang]}
          </option>
        ))}
      </select>
    </div>
  );
}
