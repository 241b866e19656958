// What the server writes into index.html (server/src/http/web.ts): where the app lives and the
// instance's default language.

function meta(name: string): string | null {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? null;
}

/** The deployment's base path without a trailing slash: '' at the site root, '/family' under a sub-path. */
export const BASE_PATH = (meta('kith-base-path') ?? '').replace(/\/+$/, '');

/** The instance's default language from the page's meta tag; i18n falls back to en_US. */
export const DEFAULT_LANG = meta('kith-default-lang') ?? 'en_US';

/** Whether the operator lets a visitor's browser languages choose before DEFAULT_LANG (`LANG_FROM_BROWSER`). */
export const LANG_FROM_BROWSER = meta('kith-lang-from-browser') === 'true';

/** An absolute URL path under the base path, e.g. appPath('/api/me') → '/family/api/me'. */
export function appPath(path: string): string {
  return `${BASE_PATH}${path.startsWith('/') ? path : `/${path}`}`;
}

/** A full URL of a client route, for links people copy (invitation and public links). */
export function absoluteUrl(path: string): string {
  return `${window.location.origin}${appPath(path)}`;
}
