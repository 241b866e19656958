import { QueryClientProvider } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { createQueryClient } from './api/queries';
import { Alerts } from './components/Alerts';
import { ErrorPage, notFoundLoader } from './components/ErrorPage';
import { AppLayout } from './features/layout/AppLayout';
import { BASE_PATH } from './lib/config';

const queryClient = createQueryClient();

// Every screen is its own chunk, so the first screen downloads only what it shows.
const screen = (load: () => Promise<{ default: ComponentType }>) => async () => ({ Component: (await load()).default });

const router = createBrowserRouter(
  [
    {
      errorElement: <ErrorPage />,
      children: [
        // Outside the logged-in area (product spec §6).
        { path: '/login', lazy: screen(() => import('./routes/Login')) },
        { path: '/logout', lazy: screen(() => import('./routes/Logout')) },
        { path: '/signup', lazy: screen(() => import('./routes/Signup')) },
        { path: '/invitation/:key', lazy: screen(() => import('./routes/Invitation')) },
        { path: '/password-reset', lazy: screen(() => import('./routes/PasswordReset')) },
        { path: '/stop-notification-emails', lazy: screen(() => import('./routes/StopNotificationEmails')) },
        {
          path: '/stop-notification-emails/:userId/:token',
          lazy: screen(() => import('./routes/StopNotificationEmails')),
        },
        { path: '/public/:token', lazy: screen(() => import('./routes/PublicMessage')) },
        {
          element: <AppLayout />,
          children: [
            { path: '/', lazy: screen(() => import('./routes/Home')) },
            { path: '/create-group', lazy: screen(() => import('./routes/CreateGroup')) },
            { path: '/groups/:id', lazy: screen(() => import('./routes/GroupFeed')) },
            { path: '/groups/:id/random', lazy: screen(() => import('./routes/RandomMessage')) },
            { path: '/groups/:id/write', lazy: screen(() => import('./routes/WriteMessage')) },
            { path: '/messages/:id', lazy: screen(() => import('./routes/MessagePage')) },
            { path: '/messages/:id/:childId', lazy: screen(() => import('./routes/MessagePage')) },
          ],
        },
        { path: '*', loader: notFoundLoader, element: null },
      ],
    },
  ],
  { basename: BASE_PATH === '' ? '/' : BASE_PATH },
);

/** The whole client: server state, router and the alert area. */
export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
      <Alerts />
    </QueryClientProvider>
  );
}
