import type { Config } from '../../config.js';
import { renderMailBody, type Block } from '../../mail/layout.js';
import type { MailDraft } from '../../mail/queue.js';
import { mailLanguage, translator, type Translate } from '../../mail/texts.js';
import type { UserRow } from '../../db/rows.js';

// The account e-mails of docs/api §10.8, in the recipient's language (texts in locales/<lang>.json).

type Recipient = Pick<UserRow, 'login' | 'name' | 'lang'>;
type MailConfig = Pick<Config, 'publicUrl' | 'defaultLang'>;

/** Greeting, the given blocks, and the common footer, in `user`'s language. */
function accountMail(
  config: MailConfig,
  kind: string,
  to: string,
  user: Recipient,
  write: (t: Translate) => { subject: string; blocks: Block[] },
): MailDraft {
  const lang = mailLanguage(user.lang, config.defaultLang);
  const t = translator(lang);
  const { subject, blocks } = write(t);
  const { html, text } = renderMailBody({
    lang,
    preview: subject,
    blocks: [{ kind: 'paragraph', text: t('greeting', { name: user.name }) }, ...blocks],
    footer: [{ text: t('footer_sent_by', { site: config.publicUrl }) }, { text: t('footer_automatic') }],
  });
  return { kind, to, subject, text, html };
}

/** §3.4: the link to choose a new password, valid one hour. */
export function passwordResetMail(config: MailConfig, user: Recipient, link: string): MailDraft {
  return accountMail(config, 'password_reset', user.login, user, (t) => ({
    subject: t('password_reset_subject'),
    blocks: [
      { kind: 'paragraph', text: t('password_reset_intro') },
      { kind: 'button', label: t('password_reset_button'), url: link },
      { kind: 'paragraph', text: t('link_fallback'), muted: true },
      { kind: 'url', url: link },
      { kind: 'paragraph', text: t('password_reset_ignore') },
    ],
  }));
}

/** §10.8: after `PUT /api/users/{id}` with a password, or `POST /api/new-password`. */
export function passwordChangedMail(config: MailConfig, user: Recipient): MailDraft {
  const login = `${config.publicUrl}/login`;
  return accountMail(config, 'password_changed', user.login, user, (t) => ({
    subject: t('password_changed_subject'),
    blocks: [
      { kind: 'paragraph', text: t('password_changed_body') },
      { kind: 'paragraph', text: t('password_changed_warning') },
      { kind: 'button', label: t('password_changed_button'), url: login },
    ],
  }));
}

/** §10.8: sent to the **previous** address when the login changes. */
export function loginChangedMail(config: MailConfig, previousLogin: string, user: Recipient): MailDraft {
  return accountMail(config, 'login_changed', previousLogin, user, (t) => ({
    subject: t('login_changed_subject'),
    blocks: [
      { kind: 'paragraph', text: t('login_changed_body', { login: user.login }) },
      { kind: 'paragraph', text: t('login_changed_warning') },
    ],
  }));
}

/** §10.8: to the former address once the account is gone. */
export function accountDeletedMail(config: MailConfig, user: Recipient): MailDraft {
  return accountMail(config, 'account_deleted', user.login, user, (t) => ({
    subject: t('account_deleted_subject'),
    blocks: [
      { kind: 'paragraph', text: t('account_deleted_body') },
      { kind: 'paragraph', text: t('account_deleted_goodbye') },
    ],
  }));
}
