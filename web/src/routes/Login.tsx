import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { EmailField, PasswordField } from '../features/auth/fields';
import { NEXT_PARAM, safeNextPath } from '../features/auth/nextPath';
import { useSignIn } from '../features/auth/useSignIn';
import { useSubmit } from '../hooks/useSubmit';
import { call } from '../lib/api';
import { useTranslation } from '../lib/i18n';
import { showAlert } from '../lib/notify';
import ui from '../styles/ui.module.css';
import { LanguagePicker } from '../components/LanguagePicker';

/**
 * /login, with a forgot-password mode that asks only for the e-mail. Signing in goes back to the
 * page named by `?next=` (a visitor sent here from the signed-in area), else to the start.
 */
export default function Login() {
  const { t } = useTranslation();
  const signIn = useSignIn();
  const [query] = useSearchParams();
  const next = safeNextPath(query.get(NEXT_PARAM));
  const [forgot, setForgot] = useState(false);
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const { pending, run } = useSubmit();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const mail = login.trim().toLowerCase();
      if (forgot) {
        await call('POST /api/password-reset-mail', { body: { mail } });
        showAlert('login.reset_mail_sent');
        setForgot(false);
      } else {
        const answer = await call('POST /api/login', { body: { login: mail, password } });
        signIn(answer.api_key, next ?? '/');
      }
    });
  };

  return (
    <main className={ui.narrow}>
      <form className={`${ui.card} ${ui.form}`} onSubmit={submit}>
        <h1 className={ui.title}>{forgot ? t('login.forgot_title') : t('login.title')}</h1>
        {forgot && <p className={ui.muted}>{t('login.forgot_explanation')}</p>}
        <EmailField value={login} onChange={setLogin} />
        {!forgot && (
          <PasswordField label={t('login.password')} purpose="current" value={password} onChange={setPassword} />
        )}
        <button className={ui.button} type="submit" disabled={pending}>
          {forgot ? t('login.send_reset') : t('login.submit')}
        </button>
        <div className={ui.row}>
          <button type="button" className={ui.buttonLink} onClick={() => setForgot((value) => !value)}>
            {forgot ? t('login.back_to_login') : t('login.forgot_link')}
          </button>
        </div>
        {!forgot && (
          <p className={ui.muted}>
            {t('login.no_account')} <Link to="/signup">{t('login.signup_link')}</Link>
          </p>
        )}
      </form>
      <LanguagePicker />
    </main>
  );
}
