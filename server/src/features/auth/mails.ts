import type { Mail } from '../../mail/mailer.js';
import type { UserRow } from '../users/queries.js';

// Plain English texts for now; the e-mail issue moves them to locales/ in the 15 languages.

export function passwordResetMail(user: Pick<UserRow, 'login' | 'name'>, link: string): Mail {
  return {
    kind: 'password_reset',
    to: user.login,
    subject: 'Reset your Kith password',
    text: `Hello ${user.name},\n\nTo choose a new password, open this link within one hour:\n\n${link}\n\nIf you did not ask for this, you can ignore this e-mail.\n`,
  };
}

export function passwordChangedMail(user: Pick<UserRow, 'login' | 'name'>): Mail {
  return {
    kind: 'password_changed',
    to: user.login,
    subject: 'Your Kith password was changed',
    text: `Hello ${user.name},\n\nThe password of your Kith account was just changed. If this was not you, reset it at once from the login page.\n`,
  };
}

export function loginChangedMail(previousLogin: string, user: Pick<UserRow, 'login' | 'name'>): Mail {
  return {
    kind: 'login_changed',
    to: previousLogin,
    subject: 'Your Kith login was changed',
    text: `Hello ${user.name},\n\nThe e-mail address of your Kith account was changed from this address to ${user.login}. If this was not you, contact the people who run your Kith.\n`,
  };
}

export function accountDeletedMail(user: Pick<UserRow, 'login' | 'name'>): Mail {
  return {
    kind: 'account_deleted',
    to: user.login,
    subject: 'Your Kith account was deleted',
    text: `Hello ${user.name},\n\nYour Kith account was deleted. Your messages stay in their groups without your name.\n`,
  };
}
