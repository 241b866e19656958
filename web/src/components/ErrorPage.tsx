import { Component, type ErrorInfo, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useTranslation } from '../lib/i18n';
import ui from '../styles/ui.module.css';

/** What the router shows for unknown routes and for a screen that crashed (product spec §2). */
export function ErrorPage({ status, statusText }: { status?: number; statusText?: string }) {
  const { t } = useTranslation();
  return (
    <main className={ui.narrow}>
      <div className={ui.card}>
        <h1 className={ui.title}>Unexpected Application Error!</h1>
        {status !== undefined && <p>{`${status} ${statusText ?? ''}`.trim()}</p>}
        <p className={ui.muted}>{t('error_page.explanation')}</p>
        <Link className={ui.button} to="/">
          {t('error_page.home')}
        </Link>
      </div>
    </main>
  );
}

/** Catches a crash while rendering a screen and shows the error page instead of a blank one. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(error, info.componentStack);
  }

  override render(): ReactNode {
    return this.state.failed ? <ErrorPage /> : this.props.children;
  }
}
