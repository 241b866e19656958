// The rules of the account settings screen that need no React: which tabs exist and how the URL
// names them, and the profile form's checks before anything is sent (product spec §5).
import { isValidNewPassword, normalizeEmail, normalizeName, type Me } from '@kith/common';

/** The tabs, in the order shown; each is named in the URL as `?tab=<id>`, so a tab can be linked. */
export const SETTINGS_TABS = [
  'profile',
  'notifications',
  'language',
  'appearance',
  'default-group',
  'account',
  'data',
] as const;
export type SettingsTab = (typeof SETTINGS_TABS)[number];

/** The tab a `?tab=` value names; a missing or unknown value opens the first one, the profile. */
export function tabOf(value: string | null): SettingsTab {
  return (SETTINGS_TABS as readonly string[]).includes(value ?? '') ? (value as SettingsTab) : 'profile';
}

/** The tab before or after `tab` (arrow keys), wrapping around at the ends as tab lists do. */
export function neighbourTab(tab: SettingsTab, step: 1 | -1): SettingsTab {
  const index = SETTINGS_TABS.indexOf(tab);
  return SETTINGS_TABS[(index + step + SETTINGS_TABS.length) % SETTINGS_TABS.length] as SettingsTab;
}

/** What the profile form holds (the picture is handled apart: it needs an upload first). */
export interface ProfileForm {
  name: string;
  email: string;
  password: string;
  confirm: string;
}

/** The profile fields a refused check points at, to focus and mark them. */
export type ProfileField = keyof ProfileForm;

/** A refused profile form: the field to fix and the text key that says why. */
export interface ProfileProblem {
  field: ProfileField;
  key: string;
}

/** The body of `PUT /api/users/{id}` for a valid form. */
export interface ProfileChanges {
  name: string;
  login: string;
  password?: string;
}

/**
 * Checks the profile form the way the server will (names 1–128 after trimming, an e-mail, a new
 * password of 8–128 characters typed twice the same), so a mistake is shown before anything is
 * sent; answers the fields to send, or the first problem in the order of the form.
 */
export function checkProfile(form: ProfileForm): { changes: ProfileChanges } | { problem: ProfileProblem } {
  const name = normalizeName(form.name);
  if (name === null) return { problem: { field: 'name', key: 'errors.invalid_name' } };
  const login = normalizeEmail(form.email);
  if (login === null) return { problem: { field: 'email', key: 'errors.invalid_email' } };
  // An empty new password keeps the current one; a confirmation alone still has to match it.
  if (form.password === '' && form.confirm === '') return { changes: { name, login } };
  if (!isValidNewPassword(form.password)) return { problem: { field: 'password', key: 'errors.invalid_password' } };
  if (form.password !== form.confirm) return { problem: { field: 'confirm', key: 'errors.passwords_dont_match' } };
  return { changes: { name, login, password: form.password } };
}

/** The profile form as a signed-in user's account fills it at first. */
export function profileFormOf(me: Pick<Me, 'name' | 'login'>): ProfileForm {
  return { name: me.name, email: me.login, password: '', confirm: '' };
}

/** The group opened at `/` (product spec §2): the chosen default if still one of the user's groups, else the first. */
export function defaultGroupOf(me: Pick<Me, 'groups' | 'data'>): string {
  const chosen = me.data.default_group;
  if (chosen !== undefined && me.groups.some((group) => group.id === chosen)) return chosen;
  return me.groups[0]?.id ?? '';
}

/** The value of the default page choice that stands for the all-groups feed (never a group id). */
export const ALL_GROUPS_CHOICE = 'feed';

/**
 * Where `/` leads (product spec §2, docs/api §11.8): the all-groups feed when the user chose it
 * (`data.default_page` = feed) and has a group, else the default group, else /create-group.
 */
export function homePathOf(me: Pick<Me, 'groups' | 'data'>): string {
  if (me.groups.length === 0) return '/create-group';
  if (me.data.default_page === 'feed') return '/feed';
  return `/groups/${defaultGroupOf(me)}`;
}

/** The default page choice of the settings: the all-groups feed, or the default group's id. */
export function defaultChoiceOf(me: Pick<Me, 'groups' | 'data'>): string {
  return me.data.default_page === 'feed' ? ALL_GROUPS_CHOICE : defaultGroupOf(me);
}

/**
 * The settings change for a default page choice. Choosing the feed keeps `default_group` (the
 * 0.5.6 client reads it as a group id and still opens that group); choosing a group sets both.
 */
export function defaultChoiceChanges(choice: string): {
  data: { default_page: 'feed' } | { default_page: 'default_group'; default_group: string };
} {
  return choice === ALL_GROUPS_CHOICE
    ? { data: { default_page: 'feed' } }
    : { data: { default_page: 'default_group', default_group: choice } };
}
