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

// The first screen's reads start at once; texts load meanwhile, before the first paint, so that it
// is already in the right language (the device's until the account's own is known, lib/language.ts).
const firstReads = startFirstScreen();
if (LANG_FROM_BROWSER) {
  const { matchBrowserLanguage } = await import('./lib/browserLanguage');
  setBrowserLanguage(matchBrowserLanguage(navigator.languages));
}
await initI18n(deviceLanguage());
// Answers the page's early script already holds reach the caches within moments: waited for, the
// first render shows the screen at once, instead of a spinner and then, in another render, the screen.
if (firstReads?.inHand() === true) await firstReads.settled;
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
