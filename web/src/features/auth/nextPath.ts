/**
 * Where a visitor goes back to after signing in. The signed-in area sends a visitor to
 * `/login?next=<path>`; the query survives a reload of the login screen, which router state
 * would not. Whatever arrives in `next` came from a URL anyone can craft, so only a path of this
 * app is accepted: never another origin (`//evil.example`, `https://…`, `/\evil`, which browsers
 * read as `//evil`), never a script URL.
 */

/** The query parameter of /login that names the path to return to. */
export const NEXT_PARAM = 'next';

// An origin no real page has, to resolve `value` against and see whether it stays there.
const PROBE = 'https://kith.invalid';

/**
 * `value` as an app path (path, query and hash, relative to the base path the router adds), or
 * null when it is absent, leads elsewhere, or is the login screen itself.
 */
export function safeNextPath(value: string | null | undefined): string | null {
  if (!value || !value.startsWith('/')) return null;
  // A backslash or a control character is never in a path this app makes, and browsers rewrite
  // some of them into `//`, which would leave the origin.
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(value) || value.startsWith('//')) return null;
  let url: URL;
  try {
    url = new URL(value, PROBE);
  } catch {
    return null;
  }
  if (url.origin !== PROBE) return null;
  if (url.pathname === '/login' || url.pathname.startsWith('/login/')) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}
