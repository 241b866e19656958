import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, startFirstScreen } from './App';
import { appPath, LANG_FROM_BROWSER } from './lib/config';
import { initI18n } from './lib/i18n';
import { deviceLanguage, setBrowserLanguage } from './lib/language';
import './styles/global.css';

// The service worker (installable app, share target: web/src/sw.ts) once the page has loaded, so
// it never competes with the first screen (this module runs before the load event). Its scope is
// the base path, where the script lives.
if ('serviceWorker' in navigator) {
  addEventListener('load', () => void navigator.serviceWorker.register(appPath('/sw.js')).catch(() => undefined));
}

// Texts first, so the first paint is already in the right language (the device's until the account's
// own is known, lib/language.ts); the first screen's code and reads load beside them.
if (LANG_FROM_BROWSER) {
  const { matchBrowserLanguage } = await import('./lib/browserLanguage');
  setBrowserLanguage(matchBrowserLanguage(navigator.languages));
}
await Promise.all([initI18n(deviceLanguage()), startFirstScreen()]);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
