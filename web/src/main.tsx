import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { DEFAULT_LANG } from './lib/config';
import { initI18n } from './lib/i18n';
import './styles/global.css';

// Texts first, so the first paint is already in the right language.
await initI18n(DEFAULT_LANG);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
