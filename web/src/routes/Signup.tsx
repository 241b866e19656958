import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { LIMITS, normalizeName } from '@kith/common';
import { EmailField, PasswordField } from '../features/auth/fields';
import { useSignIn } from '../features/auth/useSignIn';
import { useSubmit } from '../hooks/useSubmit';
import { call } from '../lib/api';
import { useTranslation } from '../lib/i18n';
import { showError } from '../lib/notify';
import ui from '../styles/ui.module.css';
import { LanguagePicker } from '../components/LanguagePicker';

/** Reads an invite key from a pasted invitation link or the bare key. */
function inviteKeyOf(value: string): string {
  const match = /\/invitation\/([^/?#\s]+)/.exec(value);
  return (match?.[1] ?? value).trim();
}

/** /signup?inviteKey=: create an account (or join with an existing one) through an invitation. */
export default function Signup() {
  const { t } = useTranslation();
  const signIn = useSignIn();
  const [params] = useSearchParams();
  const fromLink = params.get('inviteKey') ?? '';
  const [inviteKey, setInviteKey] = useState(fromLink);
  const [name, setName] = useState('');
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const { pending, run } = useSubmit();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // The name is optional: empty leaves it to the server (the part of the e-mail before @).
    const trimmed = name.trim();
    if (trimmed !== '' && normalizeName(trimmed) === null) {
      showError(t('errors.invalid_name'));
      return;
    }
    void run(async () => {
      const answer = await call('POST /api/signup', {
        body: {
          login: login.trim().toLowerCase(),
          password,
          invite_key: inviteKeyOf(inviteKey),
          ...(trimmed === '' ? {} : { name: trimmed }),
        },
      });
      signIn(answer.api_key, answer.group ? `/groups/${answer.group}` : '/');
    });
  };

  return (
    <main className={ui.narrow}>
      <form className={`${ui.card} ${ui.form}`} onSubmit={submit}>
        <h1 className={ui.title}>{t('signup.title')}</h1>
        <p className={ui.muted}>{t('signup.welcome')}</p>
        {fromLink === '' && (
          <label className={ui.label}>
            {t('signup.invitation')}
            <input
              className={ui.input}
              name="inviteKey"
              required
              value={inviteKey}
              onChange={(event) => setInviteKey(event.target.value)}
            />
          </label>
        )}
        {/* The hint stays outside the label, so the field's name is just its label. */}
        <div className={ui.label}>
          <label htmlFor="signup-name">{t('signup.name')}</label>
          <input
            id="signup-name"
            className={ui.input}
            name="name"
            autoComplete="name"
            maxLength={LIMITS.name}
            aria-describedby="signup-name-hint"
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        <span id="signup-name-hint" className={ui.muted}>
          {t('signup.name_hint')}
        </span>
        <EmailField value={login} onChange={setLogin} />
        <PasswordField
          label={t('login.password')}
          purpose="new"
          value={password}
          onChange={setPassword}
          hint={<span className={ui.muted}>{t('signup.password_hint', { min: LIMITS.passwordMin })}</span>}
        />
        <button className={ui.button} type="submit" disabled={pending}>
          {t('signup.submit')}
        </button>
        <p className={ui.muted}>
          {t('signup.have_account')} <Link to="/login">{t('signup.login_link')}</Link>
        </p>
      </form>
      <LanguagePicker />
    </main>
  );
}
