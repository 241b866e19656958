import { useEffect, useRef, useSyncExternalStore } from 'react';
import { isOfferedLanguage } from '@kith/common';
import { Navigate, Outlet, useLocation } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { keys, useMe } from '../../api/queries';
import { LoadError } from '../../components/LoadError';
import { Spinner } from '../../components/Spinner';
import { call } from '../../lib/api';
import { deviceLanguage, pickedLanguage, rememberLanguage } from '../../lib/language';
import { setLanguage, useTranslation } from '../../lib/i18n';
import { clearSession, getApiKey, subscribeSession } from '../../lib/session';
import { applyTheme, themeChoice } from '../../lib/theme';
import { useLiveEvents } from '../live/useLiveEvents';
import { Nav } from './Nav';
import { OfflineIndicator } from './OfflineIndicator';
import styles from './AppLayout.module.css';

/** Hook for the API key, re-rendering on login and logout. */
export function useApiKey(): string | null {
  return useSyncExternalStore(subscribeSession, getApiKey);
}

/**
 * The logged-in area: visitors go to /login, which brings them back here (path, query and hash)
 * once signed in; the user is loaded once, their language and colour scheme applied, and the live
 * stream opened.
 */
export function AppLayout() {
  const { t } = useTranslation();
  const mainRef = useRef<HTMLElement>(null);
  const key = useApiKey();
  const location = useLocation();
  const me = useMe(key !== null);
  useLiveEvents(me.data !== undefined ? key : null);

  const client = useQueryClient();
  const lang = me.data?.data.lang;
  const userId = me.data?.id;
  useEffect(() => {
    if (me.data === undefined) return;
    void setLanguage(lang ?? deviceLanguage());
    // The account's language wins, and the device remembers it for the sign-in page after a logout.
    if (lang !== undefined && isOfferedLanguage(lang)) return rememberLanguage(lang);
    // An account without one takes the language picked on this device, so its e-mails speak it too.
    const picked = pickedLanguage();
    if (userId && lang === undefined && picked !== null) {
      call('PUT /api/users/{id}', { params: { id: userId }, body: { data: { lang: picked } } })
        .then((saved) => client.setQueryData(keys.me, saved))
        .catch(() => undefined); // the interface speaks it anyway; the next visit tries again
    }
  }, [me.data, lang, userId, client]);

  // The colour scheme follows the account (`data.theme`), on load and whenever it is saved.
  const theme = me.data === undefined ? undefined : themeChoice(me.data.data.theme);
  useEffect(() => {
    if (theme !== undefined) applyTheme(theme);
  }, [theme]);

  // An answer without an id means "not logged in" (product spec §4).
  const noUser = me.data !== undefined && !me.data.id;
  useEffect(() => {
    if (noUser) clearSession();
  }, [noUser]);

  if (key === null || noUser) {
    // The way back rides in the query (it survives a reload of /login); the login screen checks it
    // (features/auth/nextPath.ts), so this first-screen code only writes it.
    const here = `${location.pathname}${location.search}${location.hash}`;
    return <Navigate to={here === '/' ? '/login' : `/login?next=${encodeURIComponent(here)}`} replace />;
  }
  if (me.data === undefined)
    return me.isError ? <LoadError error={me.error} onRetry={() => void me.refetch()} /> : <Spinner />;
  return (
    <div className={styles.shell}>
      {/* The first stop of the Tab key, past the navigation. Focus is moved by hand: following
          the hash alone would leave it where it was in some browsers, and change the URL. */}
      <a
        className={styles.skip}
        href="#main"
        onClick={(event) => {
          event.preventDefault();
          mainRef.current?.focus();
        }}
      >
        {t('nav.skip_to_content')}
      </a>
      <Nav me={me.data} />
      <main id="main" ref={mainRef} tabIndex={-1} className={styles.main}>
        <Outlet />
      </main>
      <OfflineIndicator />
    </div>
  );
}
