import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { BrowserRouter, Route, Routes, useLocation } from 'react-router';
import { createQueryClient, type FirstScreenReads, prefetchFirstScreen } from './api/queries';
import { Alerts } from './components/Alerts';
import { ErrorBoundary, ErrorPage } from './components/ErrorPage';
import { Spinner } from './components/Spinner';
import { AppLayout } from './features/layout/AppLayout';
import { BASE_PATH } from './lib/config';
// The group page, the most common first screen, is in the shell chunk with this module
// (web/vite.config.ts): imported as it is, it renders without suspending.
import GroupFeed from './routes/GroupFeed';

const queryClient = createQueryClient();

// Every screen is its own chunk, so the first screen downloads only what it shows (the group page
// rides in the shell chunk: web/vite.config.ts). The declarative router (not the data router)
// keeps about 28 KB of gzipped router code out of the first screen.
const Login = lazy(() => import('./routes/Login'));
const Logout = lazy(() => import('./routes/Logout'));
const Signup = lazy(() => import('./routes/Signup'));
const Invitation = lazy(() => import('./routes/Invitation'));
const PasswordReset = lazy(() => import('./routes/PasswordReset'));
const StopNotificationEmails = lazy(() => import('./routes/StopNotificationEmails'));
const PublicMessage = lazy(() => import('./routes/PublicMessage'));
const Home = lazy(() => import('./routes/Home'));
const CreateGroup = lazy(() => import('./routes/CreateGroup'));
const AllGroupsFeed = lazy(() => import('./routes/AllGroupsFeed'));
const RandomMessage = lazy(() => import('./routes/RandomMessage'));
const WriteMessage = lazy(() => import('./routes/WriteMessage'));
const MessagePage = lazy(() => import('./routes/MessagePage'));
const GroupSettings = lazy(() => import('./routes/GroupSettings'));
const Search = lazy(() => import('./routes/Search'));
const Bookmarks = lazy(() => import('./routes/Bookmarks'));
const Share = lazy(() => import('./routes/Share'));
const UserSettings = lazy(() => import('./routes/UserSettings'));

function Screens() {
  const location = useLocation();
  return (
    // A crash shows the error page; moving to another path tries again.
    <ErrorBoundary key={location.pathname}>
      <Suspense fallback={<Spinner />}>
        <Routes>
          {/* Outside the logged-in area (product spec §6). */}
          <Route path="/login" element={<Login />} />
          <Route path="/logout" element={<Logout />} />
          <Route path="/signup" element={<Signup />} />
          <Route path="/invitation/:key" element={<Invitation />} />
          <Route path="/password-reset" element={<PasswordReset />} />
          <Route path="/stop-notification-emails" element={<StopNotificationEmails />} />
          <Route path="/stop-notification-emails/:userId/:token" element={<StopNotificationEmails />} />
          <Route path="/public/:token" element={<PublicMessage />} />
          <Route element={<AppLayout />}>
            <Route path="/" element={<Home />} />
            <Route path="/create-group" element={<CreateGroup />} />
            <Route path="/feed" element={<AllGroupsFeed />} />
            <Route path="/groups/:id" element={<GroupFeed />} />
            <Route path="/groups/:id/random" element={<RandomMessage />} />
            <Route path="/groups/:id/write" element={<WriteMessage />} />
            <Route path="/groups/:id/settings" element={<GroupSettings />} />
            <Route path="/groups/:id/search" element={<Search />} />
            <Route path="/messages/:id" element={<MessagePage />} />
            <Route path="/messages/:id/:childId" element={<MessagePage />} />
            <Route path="/bookmarks" element={<Bookmarks />} />
            <Route path="/share" element={<Share />} />
            <Route path="/users/:id/settings" element={<UserSettings />} />
          </Route>
          <Route path="*" element={<ErrorPage status={404} statusText="Not Found" />} />
        </Routes>
      </Suspense>
    </ErrorBoundary>
  );
}

/**
 * Called before the first render: a signed-in person opening a group page, the most common first
 * screen, gets its reads started at once (`prefetchFirstScreen`); its code is already in.
 */
export function startFirstScreen(): FirstScreenReads | null {
  return prefetchFirstScreen(queryClient, window.location.pathname.slice(BASE_PATH.length) || '/');
}

/** The whole client: server state, router and the alert area. */
export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename={BASE_PATH === '' ? '/' : BASE_PATH}>
        <Screens />
      </BrowserRouter>
      <Alerts />
    </QueryClientProvider>
  );
}
