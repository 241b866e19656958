import { type FormEvent, useState } from 'react';
import { useSearchParams } from 'react-router';
import { PasswordField } from '../features/auth/fields';
import { useSignIn } from '../features/auth/useSignIn';
import { useSubmit } from '../hooks/useSubmit';
import { call } from '../lib/api';
import { useTranslation } from '../lib/i18n';
import { showAlert } from '../lib/notify';
import ui from '../styles/ui.module.css';
import { LanguagePicker } from '../components/LanguagePicker';

/** /password-reset?mail=&key=: choose a new password from the e-mailed link. */
export default function PasswordReset() {
  const { t } = useTranslation();
  const signIn = useSignIn();
  const [params] = useSearchParams();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const { pending, run } = useSubmit();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (password !== confirm) {
      showAlert('errors.passwords_dont_match', 'danger');
      return;
    }
    void run(async () => {
      const answer = await call('POST /api/new-password', {
        body: { mail: params.get('mail') ?? '', key: params.get('key') ?? '', password },
      });
      showAlert('password_reset.done');
      // The reset rotates the key (docs/api §3.5): the returned one is the new key.
      signIn(answer.api_key);
    });
  };

  return (
    <main className={ui.narrow}>
      <form className={`${ui.card} ${ui.form}`} onSubmit={submit}>
        <h1 className={ui.title}>{t('password_reset.title')}</h1>
        <p className={ui.muted}>{params.get('mail')}</p>
        <PasswordField label={t('password_reset.new_password')} purpose="new" value={password} onChange={setPassword} />
        <PasswordField
          label={t('password_reset.confirm')}
          name="confirm"
          purpose="new"
          value={confirm}
          onChange={setConfirm}
        />
        <button className={ui.button} type="submit" disabled={pending}>
          {t('password_reset.submit')}
        </button>
      </form>
      <LanguagePicker />
    </main>
  );
}
