import { QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Me } from '@kith/common';
import { createQueryClient, keys } from '../api/queries';
import { alerts } from '../lib/alerts';
import { initI18n } from '../lib/i18n';
import { me } from '../test/fixtures';
import UserSettings from './UserSettings';

// The tab routing of the settings screen, and the profile's checks before anything is sent.

/** Shows the router's current address, for the tests to read. */
function Where() {
  const current = useLocation();
  return <output data-testid="where">{`${current.pathname}${current.search}`}</output>;
}

const where = () => screen.getByTestId('where').textContent;

function show(path: string, data: Me['data'] = {}) {
  const client = createQueryClient();
  client.setQueryData(keys.me, { ...me, data, groups: [{ id: 'g1', entityType: 'group', name: 'Family' }] });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/users/:id/settings" element={<UserSettings />} />
        </Routes>
        <Where />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const selectedTab = () => screen.getByRole('tab', { selected: true });

beforeAll(async () => {
  await initI18n('en_US');
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  for (const alert of alerts.getSnapshot()) alerts.dismiss(alert.id);
});

describe('UserSettings tabs', () => {
  it('opens the profile without ?tab=, and the named tab with it', () => {
    show('/users/me/settings');
    expect(selectedTab().textContent).toBe('Profile');
    expect(screen.getByRole('tabpanel', { name: 'Profile' })).toBeTruthy();
    cleanup();
    show('/users/me/settings?tab=language');
    expect(selectedTab().textContent).toBe('Language');
    expect(screen.getByRole('combobox', { name: 'Language of the interface' })).toBeTruthy();
  });

  it('keeps the chosen tab in the URL', () => {
    show('/users/me/settings');
    fireEvent.click(screen.getByRole('tab', { name: 'Appearance' }));
    expect(where()).toBe('/users/me/settings?tab=appearance');
    expect(screen.getByRole('radio', { name: 'Dark' })).toBeTruthy();
  });

  it('moves between tabs with the arrow keys, Home and End, wrapping around', () => {
    show('/users/me/settings');
    fireEvent.keyDown(selectedTab(), { key: 'ArrowLeft' });
    expect(selectedTab().textContent).toBe('Your data');
    expect(document.activeElement).toBe(selectedTab());
    fireEvent.keyDown(selectedTab(), { key: 'ArrowRight' });
    expect(selectedTab().textContent).toBe('Profile');
    fireEvent.keyDown(selectedTab(), { key: 'End' });
    expect(where()).toBe('/users/me/settings?tab=data');
    fireEvent.keyDown(selectedTab(), { key: 'Home' });
    expect(where()).toBe('/users/me/settings?tab=profile');
  });

  it("sends another user's settings address to one's own, keeping the tab", () => {
    show('/users/someone-else/settings?tab=notifications');
    expect(where()).toBe('/users/me/settings?tab=notifications');
    expect(selectedTab().textContent).toBe('Notifications');
  });

  it('lists the groups, each leading to its settings', () => {
    show('/users/me/settings');
    fireEvent.click(screen.getByRole('button', { name: /Settings of my groups/ }));
    expect(screen.getByRole('link', { name: 'Family' }).getAttribute('href')).toBe('/groups/g1/settings');
  });
});

describe('UserSettings choices', () => {
  it("shows the account's saved language even before the interface has switched to it", () => {
    // The interface is still in English here, as right after a reload while the texts download.
    show('/users/me/settings?tab=language', { lang: 'ru_RU' });
    const select = screen.getByRole<HTMLSelectElement>('combobox', { name: 'Language of the interface' });
    expect(select.value).toBe('ru_RU');
    expect(screen.getByRole('option', { name: 'Русский' }).getAttribute('lang')).toBe('ru-RU');
  });

  it('shows the saved frequency and colours, and "like my device" when none was chosen', () => {
    show('/users/me/settings?tab=notifications', { notification_emails: 'monthly' });
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'Every month' }).checked).toBe(true);
    cleanup();
    show('/users/me/settings?tab=appearance');
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'Like my device' }).checked).toBe(true);
    cleanup();
    show('/users/me/settings?tab=appearance', { theme: 'dark' });
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'Dark' }).checked).toBe(true);
  });

  it('offers "Immediately" right after "Never", shows it saved, and sends it', async () => {
    show('/users/me/settings?tab=notifications', { notification_emails: 'immediately' });
    // The summary frequency's choices (the mention e-mails' follow them in the same form, issue 21).
    const digest = () => screen.getByRole('group', { name: 'E-mail me a summary of my notifications' });
    const radios = within(digest()).getAllByRole<HTMLInputElement>('radio');
    expect(radios.map((radio) => radio.labels?.[0]?.textContent)).toEqual([
      'Never',
      'Immediately',
      'Every hour',
      'Every day',
      'Every week',
      'Every month',
    ]);
    expect(within(digest()).getByRole<HTMLInputElement>('radio', { name: 'Immediately' }).checked).toBe(true);
    cleanup();

    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockResolvedValue(
      new Response(JSON.stringify({ ...me, data: { notification_emails: 'immediately' } }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      }),
    );
    show('/users/me/settings?tab=notifications', { notification_emails: 'daily' });
    fireEvent.click(within(digest()).getByRole('radio', { name: 'Immediately' }));
    await act(async () => {
      fireEvent.click(within(digest().closest('form') as HTMLElement).getByRole('button', { name: 'Save' }));
      await Promise.resolve();
    });
    const [, init] = fetchSpy.mock.calls[0] ?? [];
    expect(init?.method).toBe('PUT');
    expect(typeof init?.body).toBe('string');
    // The form sends both of its e-mail choices, the mentions' unchanged.
    expect(JSON.parse(init?.body as string)).toEqual({
      data: { notification_emails: 'immediately', mention_emails: 'with_others' },
    });
  });
});

/** The requests of a fetch spy that would change something (any method but GET). */
const writesOf = (spy: { mock: { calls: [unknown, RequestInit?][] } }) =>
  spy.mock.calls.filter(([, init]) => (init?.method ?? 'GET') !== 'GET');

describe('UserSettings profile checks', () => {
  it('says "Passwords don\'t match" and sends nothing when the confirmation differs', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    show('/users/me/settings');
    fireEvent.input(screen.getByLabelText('New password'), { target: { value: 'a good password' } });
    fireEvent.input(screen.getByLabelText('Repeat the new password'), { target: { value: 'another one!' } });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Save' }));
      await Promise.resolve();
    });
    expect(alerts.getSnapshot().map((a) => [a.text, a.style])).toEqual([["Passwords don't match", 'danger']]);
    expect(screen.getByLabelText('Repeat the new password').getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(screen.getByLabelText('Repeat the new password'));
    // Nothing sent: the tab's only request is the read of the storage use (GET /api/me/storage).
    expect(writesOf(fetchSpy)).toEqual([]);
  });

  it('refuses a blank name before sending', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    show('/users/me/settings');
    fireEvent.input(screen.getByLabelText('Name'), { target: { value: '   ' } });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Save' }));
      await Promise.resolve();
    });
    expect(alerts.getSnapshot()[0]?.text).toBe('The name must be 1 to 128 characters long, without < or >.');
    // Nothing sent: the tab's only request is the read of the storage use (GET /api/me/storage).
    expect(writesOf(fetchSpy)).toEqual([]);
  });
});

describe('UserSettings mention e-mails (issue 21)', () => {
  const mentions = () => screen.getByRole('group', { name: 'E-mail me when someone mentions me' });

  it('shows the three choices under the digest frequency, "with my other notifications" by default', () => {
    show('/users/me/settings?tab=notifications');
    const radios = within(mentions()).getAllByRole<HTMLInputElement>('radio');
    expect(radios.map((radio) => radio.labels?.[0]?.textContent)).toEqual([
      'With my other notifications',
      'Right away, whatever the frequency above',
      'Never',
    ]);
    expect(radios[0]?.checked).toBe(true);
    cleanup();
    show('/users/me/settings?tab=notifications', { mention_emails: 'none' });
    expect(within(mentions()).getByRole<HTMLInputElement>('radio', { name: 'Never' }).checked).toBe(true);
  });

  it('sends data.mention_emails with the frequency, through the one Save of the e-mail choices', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockResolvedValue(
      new Response(JSON.stringify({ ...me, data: { mention_emails: 'immediately' } }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      }),
    );
    show('/users/me/settings?tab=notifications', { notification_emails: 'weekly' });
    fireEvent.click(within(mentions()).getByRole('radio', { name: 'Right away, whatever the frequency above' }));
    const form = mentions().closest('form') as HTMLElement;
    // One form for what is e-mailed: the summary frequency is in it too.
    expect(within(form).getByRole('group', { name: 'E-mail me a summary of my notifications' })).toBeTruthy();
    await act(async () => {
      fireEvent.click(within(form).getByRole('button', { name: 'Save' }));
      await Promise.resolve();
    });
    const [, init] = fetchSpy.mock.calls[0] ?? [];
    expect(JSON.parse(init?.body as string)).toEqual({
      data: { notification_emails: 'weekly', mention_emails: 'immediately' },
    });
    fetchSpy.mockRestore();
  });
});
