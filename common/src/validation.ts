import { LIMITS } from './limits.js';

/**
 * Pure validation rules of the contract (§1.7), shared by the server and the web client.
 * Each returns the normalized value, or `null` when the value breaks the rule.
 */

// Control characters (C0, DEL, C1) are refused in names: they break layouts and logs.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_NAME_CHARS = /[<>\u0000-\u001f\u007f-\u009f]/;

/** A group or user name: trimmed, 1–128 characters, no `<`, `>` or control characters. */
export function normalizeName(value: string): string | null {
  const name = value.trim();
  if (name.length < LIMITS.nameMin || name.length > LIMITS.name) return null;
  if (FORBIDDEN_NAME_CHARS.test(name)) return null;
  return name;
}

/** An e-mail login: trimmed and lowercased; plausible means ≤ 254 characters, one `@`, a dot in the domain. */
export function normalizeEmail(value: string): string | null {
  const email = value.trim().toLowerCase();
  if (email.length === 0 || email.length > LIMITS.email) return null;
  const parts = email.split('@');
  if (parts.length !== 2) return null;
  const [local, domain] = parts as [string, string];
  if (local.length === 0 || domain.length < 3) return null;
  if (/\s/.test(email)) return null;
  const dot = domain.indexOf('.');
  if (dot <= 0 || domain.endsWith('.')) return null;
  return email;
}

/** A new password: 8–128 characters, no composition rule. */
export function isValidNewPassword(value: string): boolean {
  return value.length >= LIMITS.passwordMin && value.length <= LIMITS.passwordMax;
}

/** A language code such as `fr_FR`, `zgh` or `zh_Hans`: letters, optional `_` and 2–4 letters, ≤ 16. */
export function isValidLangCode(value: string): boolean {
  return value.length <= LIMITS.langCode && /^[A-Za-z]{2,16}(_[A-Za-z]{2,4})?$/.test(value);
}

/** The name a new account gets from its e-mail: the part before `@`, without `<` and `>`, ≤ 128. */
export function nameFromEmail(email: string): string {
  const local = email.split('@')[0] ?? '';
  const cleaned = normalizeName(local.replace(/[<>]/g, '').slice(0, LIMITS.name));
  return cleaned ?? 'user';
}
