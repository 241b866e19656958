import { type AlertStyle, alerts } from './alerts';
import { i18n } from './i18n';

/** Shows a translated transient alert (success style unless told otherwise). */
export function showAlert(key: string, style: AlertStyle = 'success', options?: Record<string, unknown>): void {
  alerts.show(i18n.t(key, options), style);
}

/** Shows a failure as a danger alert, with an already translated text. */
export function showError(text: string): void {
  alerts.show(text, 'danger');
}
