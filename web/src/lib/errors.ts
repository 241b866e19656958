import { ApiError } from './api';
import type { TFunction } from './i18n';

/**
 * A readable, translated text for a failed call: our text for a known code, else the server's own
 * message, else the generic "An error occurred" (product spec §8). Every screen's error text is
 * decided here, the login screen's included.
 */
export function errorText(t: TFunction, error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 0) return t('errors.network_error');
    // Only Kith's error envelope carries a message meant for a person. Without one (a proxy's
    // error page, a bare 502) the client names the code `http_<status>` and the message is the
    // HTTP status text, such as "Internal Server Error", which is no text for a person.
    const serverMessage = error.code.startsWith('http_') ? '' : error.message.trim();
    return t(`errors.${error.code}`, { defaultValue: serverMessage || t('errors.generic') });
  }
  return t('errors.generic');
}
