import { ApiError } from './api';
import type { TFunction } from './i18n';

/** A readable, translated text for a failed call: our text for a known code, else the server's. */
export function errorText(t: TFunction, error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 0) return t('errors.network_error');
    return t(`errors.${error.code}`, { defaultValue: error.message || t('errors.generic') });
  }
  return t('errors.generic');
}
