import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, startFirstScreen } from './App';
import { DEFAULT_LANG } from './lib/config';
import { initI18n } from './lib/i18n';
import './styles/global.css';

// Texts first, so the first paint is already in the right language; the first screen's code and
// reads load beside them.
await Promise.all([initI18n(DEFAULT_LANG), startFirstScreen()]);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
