import type { ReactNode } from 'react';
import { LIMITS } from '@kith/common';
import { useTranslation } from '../../lib/i18n';
import ui from '../../styles/ui.module.css';

interface FieldProps {
  value: string;
  onChange: (value: string) => void;
}

/** The e-mail (login) field of the sign-in, signup and reset forms. */
export function EmailField({ value, onChange }: FieldProps) {
  const { t } = useTranslation();
  return (
    <label className={ui.label}>
      {t('login.email')}
      <input
        className={ui.input}
        type="email"
        name="login"
        autoComplete="username"
        required
        maxLength={LIMITS.email}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
    </label>
  );
}

interface PasswordFieldProps extends FieldProps {
  label: string;
  name?: string;
  /**
   * `current` signs in, so it takes any length an imported account may have; `new` chooses a
   * password and holds the spec's 8–128 bounds.
   */
  purpose: 'current' | 'new';
  hint?: ReactNode;
}

/** A password field, for signing in or for choosing a new password. */
export function PasswordField({ label, name = 'password', purpose, hint, value, onChange }: PasswordFieldProps) {
  return (
    <label className={ui.label}>
      {label}
      <input
        className={ui.input}
        type="password"
        name={name}
        autoComplete={purpose === 'current' ? 'current-password' : 'new-password'}
        required
        minLength={purpose === 'new' ? LIMITS.passwordMin : undefined}
        maxLength={purpose === 'new' ? LIMITS.passwordMax : LIMITS.loginPasswordMax}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
      {hint}
    </label>
  );
}
