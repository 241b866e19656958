// The router state fields of the product spec (§2): route, id, action, search, plus backUrl,
// entityType and entity, derived from the URL shape /{route}/{id}/{action}.

export interface RouteState {
  route: string;
  id: string | null;
  action: string | null;
  search: URLSearchParams;
  entityType: 'group' | 'message' | 'user' | null;
  backUrl: string | null;
}

const ENTITY_TYPES: Record<string, RouteState['entityType']> = { groups: 'group', messages: 'message', users: 'user' };

/** Splits a client path (without the base path) into the spec's router fields. */
export function parseRoute(pathname: string, search = '', backUrl: string | null = null): RouteState {
  const [route = '', id = null, action = null] = pathname.split('/').filter((part) => part !== '');
  return {
    route,
    id,
    action,
    search: new URLSearchParams(search),
    entityType: ENTITY_TYPES[route] ?? null,
    backUrl,
  };
}

/** Routes a visitor may open without signing in (product spec §6). */
export const PUBLIC_ROUTES = [
  'login',
  'logout',
  'password-reset',
  'signup',
  'invitation',
  'stop-notification-emails',
  'public',
];

/** True when the path is outside the logged-in area. */
export function isPublicPath(pathname: string): boolean {
  return PUBLIC_ROUTES.includes(parseRoute(pathname).route);
}
