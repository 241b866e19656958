import { useTranslation } from 'react-i18next';
import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import ui from '../styles/ui.module.css';

/** What the router shows for unknown routes and for a screen that crashed (product spec §2). */
export function ErrorPage() {
  const error = useRouteError();
  const { t } = useTranslation();
  const detail = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : null;
  if (!isRouteErrorResponse(error)) console.error(error);
  return (
    <main className={ui.narrow}>
      <div className={ui.card}>
        <h1 className={ui.title}>Unexpected Application Error!</h1>
        {detail !== null && <p>{detail}</p>}
        <p className={ui.muted}>{t('error_page.explanation')}</p>
        <Link className={ui.button} to="/">
          {t('error_page.home')}
        </Link>
      </div>
    </main>
  );
}

/** Loader of the catch-all route: unknown paths become a 404 for the error page. */
export function notFoundLoader(): never {
  // React Router turns a thrown Response into a route error response (status and text).
  // eslint-disable-next-line @typescript-eslint/only-throw-error
  throw new Response(null, { status: 404, statusText: 'Not Found' });
}
