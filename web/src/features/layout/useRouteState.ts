import { useLocation } from 'react-router';
import { parseRoute, type RouteState } from './route';

/**
 * The router fields of the spec for the current URL. `backUrl` travels in the history entry's
 * state, so it survives a reload of the page and is kept when the screen updates (router/update).
 */
export function useRouteState(): RouteState {
  const location = useLocation();
  const state = location.state as { backUrl?: unknown } | null;
  return parseRoute(location.pathname, location.search, typeof state?.backUrl === 'string' ? state.backUrl : null);
}
