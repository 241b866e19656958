import { QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Info, Me } from '@kith/common';
import { createQueryClient, keys } from '../../api/queries';
import { alerts } from '../../lib/alerts';
import { initI18n } from '../../lib/i18n';
import { me } from '../../test/fixtures';
import { NotificationsPanel } from '../settings/ChoicePanels';

// The Web Push section of the notifications tab, with the browser's push service and the
// server's routes faked: the permission prompt, the subscription, and the calls they lead to.

/** The server's VAPID key in the list's answer (65 bytes, base64url). */
const PUBLIC_KEY = `B${'A'.repeat(86)}`;
const ANDROID_CHROME =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

interface Call {
  method: string;
  url: string;
  body: unknown;
}

let calls: Call[];
let devices: { id: string; endpoint: string; label: string; createdAt: number; lastPushAt: number | null }[];
let permission: NotificationPermission;
let answerToPrompt: NotificationPermission;
/** This browser's subscription at the fake push service, or null. */
let subscription: { endpoint: string; unsubscribe: ReturnType<typeof vi.fn> } | null;
let subscribeSpy: ReturnType<typeof vi.fn<(options?: unknown) => Promise<unknown>>>;
let requestPermission: ReturnType<typeof vi.fn>;

function fakeSubscription(endpoint: string) {
  const made = {
    endpoint,
    options: { applicationServerKey: null },
    toJSON: () => ({ endpoint, keys: { p256dh: 'device-key', auth: 'device-auth' } }),
    unsubscribe: vi.fn(() => {
      subscription = null;
      return Promise.resolve(true);
    }),
  };
  return made;
}

function json(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function installFakes() {
  calls = [];
  devices = [
    { id: 's1', endpoint: 'https://push.example/laptop', label: 'Firefox on Linux', createdAt: 1, lastPushAt: null },
  ];
  permission = 'default';
  answerToPrompt = 'granted';
  subscription = null;
  subscribeSpy = vi.fn<(options?: unknown) => Promise<unknown>>(() => {
    subscription = fakeSubscription('https://push.example/phone');
    return Promise.resolve(subscription);
  });
  requestPermission = vi.fn(() => {
    permission = answerToPrompt;
    return Promise.resolve(permission);
  });
  const pushManager = {
    getSubscription: () => Promise.resolve(subscription),
    subscribe: subscribeSpy,
  };
  const registration = { pushManager };
  vi.stubGlobal('PushManager', class {});
  vi.stubGlobal('Notification', {
    get permission() {
      return permission;
    },
    requestPermission,
  });
  Object.defineProperty(navigator, 'serviceWorker', {
    configurable: true,
    value: { getRegistration: () => Promise.resolve(registration), ready: Promise.resolve(registration) },
  });
  vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(ANDROID_CHROME);
  vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    const url = input instanceof Request ? input.url : input.toString();
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    calls.push({ method, url, body });
    if (url === '/api/me/push-subscriptions' && method === 'GET') {
      return Promise.resolve(json({ publicKey: PUBLIC_KEY, subscriptions: devices }));
    }
    if (url === '/api/me/push-subscriptions' && method === 'POST') {
      const added = { id: 's2', endpoint: 'https://push.example/phone', label: 'x', createdAt: 2, lastPushAt: null };
      devices = [...devices, { ...added, label: (body as { label: string }).label }];
      return Promise.resolve(json(added, 201));
    }
    if (url.startsWith('/api/me/push-subscriptions/') && method === 'DELETE') {
      devices = devices.filter((device) => !url.endsWith(`/${device.id}`));
      return Promise.resolve(new Response(null, { status: 204 }));
    }
    if (url === '/api/users/me' && method === 'PUT') {
      return Promise.resolve(json({ ...me, data: (body as { data: Me['data'] }).data }));
    }
    return Promise.resolve(json({ code: 'not_found', message: 'Not found' }, 404));
  });
}

function show(options: { push?: boolean; data?: Me['data'] } = {}) {
  const client = createQueryClient();
  client.setQueryData(keys.me, { ...me, data: options.data ?? {} });
  const info: Partial<Info> = { push: options.push ?? true };
  client.setQueryData(keys.info, info);
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <NotificationsPanel me={{ ...me, data: options.data ?? {} }} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const section = () => screen.getByRole('region', { name: 'Push notifications' });
const deviceNames = () =>
  within(section())
    .queryAllByRole('listitem')
    .map((item) => item.firstElementChild?.textContent);

beforeAll(async () => {
  await initI18n('en_US');
});

beforeEach(() => {
  installFakes();
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  Reflect.deleteProperty(navigator, 'serviceWorker');
  for (const alert of alerts.getSnapshot()) alerts.dismiss(alert.id);
});

describe('PushSettings', () => {
  it('is not shown when the server does not push, or the browser cannot receive pushes', async () => {
    show({ push: false });
    await act(async () => {});
    expect(screen.queryByRole('heading', { name: 'Push notifications' })).toBeNull();
    // The e-mail choices of the tab are still there.
    expect(screen.getByRole('group', { name: 'E-mail me a summary of my notifications' })).toBeTruthy();
    cleanup();
    vi.unstubAllGlobals();
    show();
    await act(async () => {});
    expect(screen.queryByRole('heading', { name: 'Push notifications' })).toBeNull();
    expect(calls).toEqual([]);
  });

  it('lists the devices, and turns this one on: permission asked on the click, subscribed, sent', async () => {
    show();
    const turnOn = await screen.findByRole('button', { name: 'Turn on for this device' });
    await vi.waitFor(() => expect((turnOn as HTMLButtonElement).disabled).toBe(false));
    expect(within(section()).getByText('Notifications are off for this device.')).toBeTruthy();
    expect(deviceNames()).toEqual(['Firefox on Linux']);
    // Never asked before the click.
    expect(requestPermission).not.toHaveBeenCalled();

    await act(async () => {
      fireEvent.click(turnOn);
    });
    await within(section()).findByText('Notifications are on for this device.');
    expect(requestPermission).toHaveBeenCalledTimes(1);
    expect(subscribeSpy).toHaveBeenCalledTimes(1);
    const [options] = subscribeSpy.mock.calls[0] as [{ userVisibleOnly: boolean; applicationServerKey: Uint8Array }];
    expect(options.userVisibleOnly).toBe(true);
    expect(options.applicationServerKey).toHaveLength(65);
    expect(options.applicationServerKey[0]).toBe(0x04);
    expect(calls.find((call) => call.method === 'POST')).toEqual({
      method: 'POST',
      url: '/api/me/push-subscriptions',
      body: {
        endpoint: 'https://push.example/phone',
        keys: { p256dh: 'device-key', auth: 'device-auth' },
        label: 'Chrome on Android',
      },
    });
    expect(deviceNames()).toEqual(['Firefox on Linux', 'Chrome on Androidthis device']);
    expect(alerts.getSnapshot().map((alert) => alert.text)).toEqual(['Notifications are on for this device']);
    // The same button, now turning it off, keeps the focus where it was.
    expect(screen.getByRole('button', { name: 'Turn off for this device' })).toBe(turnOn);
  });

  it('sends nothing when the prompt is dismissed, and explains how to unblock when refused', async () => {
    answerToPrompt = 'default';
    show();
    const turnOn = await screen.findByRole('button', { name: 'Turn on for this device' });
    await vi.waitFor(() => expect((turnOn as HTMLButtonElement).disabled).toBe(false));
    await act(async () => {
      fireEvent.click(turnOn);
    });
    expect(subscribeSpy).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Turn on for this device' })).toBeTruthy();

    answerToPrompt = 'denied';
    await act(async () => {
      fireEvent.click(turnOn);
    });
    expect(subscribeSpy).not.toHaveBeenCalled();
    expect(calls.filter((call) => call.method !== 'GET')).toEqual([]);
    expect(within(section()).getByText('Your browser blocks notifications from Kith.')).toBeTruthy();
    expect(within(section()).getByText(/open the site settings/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Turn on for this device' })).toBeNull();
  });

  it('says when the push service refuses, and sends nothing', async () => {
    subscribeSpy.mockImplementation(() => Promise.reject(new DOMException('push service error', 'AbortError')));
    show();
    const turnOn = await screen.findByRole('button', { name: 'Turn on for this device' });
    await vi.waitFor(() => expect((turnOn as HTMLButtonElement).disabled).toBe(false));
    await act(async () => {
      fireEvent.click(turnOn);
    });
    // The permission, then the refused subscription: a few promises after the click.
    await vi.waitFor(() =>
      expect(alerts.getSnapshot().map((alert) => [alert.text, alert.style])).toEqual([
        ['This browser could not turn notifications on. Try again later.', 'danger'],
      ]),
    );
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
  });

  it('marks this device in the list, and turns it off: removed on the server, unsubscribed here', async () => {
    permission = 'granted';
    subscription = fakeSubscription('https://push.example/laptop');
    const unsubscribe = subscription.unsubscribe;
    show();
    const turnOff = await screen.findByRole('button', { name: 'Turn off for this device' });
    expect(deviceNames()).toEqual(['Firefox on Linuxthis device']);
    await act(async () => {
      fireEvent.click(turnOff);
    });
    await within(section()).findByText('Notifications are off for this device.');
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.url)).toEqual([
      '/api/me/push-subscriptions/s1',
    ]);
    expect(unsubscribe).toHaveBeenCalledTimes(1);
    expect(within(section()).getByText('No device receives notifications yet.')).toBeTruthy();
  });

  it('removes another device from the list, and gives the focus to the list', async () => {
    show();
    const remove = await screen.findByRole('button', { name: 'Remove Firefox on Linux' });
    await act(async () => {
      fireEvent.click(remove);
    });
    await within(section()).findByText('No device receives notifications yet.');
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.url)).toEqual([
      '/api/me/push-subscriptions/s1',
    ]);
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Devices that receive notifications' }));
  });

  it('shows the saved choice and quiet hours, and saves them with the time zone', async () => {
    show({ data: { push_notifications: 'none', quiet_hours: '22:30-07:00' } });
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'Nothing' }).checked).toBe(true);
    const pause = screen.getByRole<HTMLInputElement>('checkbox', { name: 'Pause notifications during quiet hours' });
    expect(pause.checked).toBe(true);
    expect(screen.getByLabelText<HTMLInputElement>('From').value).toBe('22:30');
    expect(screen.getByLabelText<HTMLInputElement>('To').value).toBe('07:00');

    fireEvent.click(screen.getByRole('radio', { name: 'Only mentions of me and replies to me' }));
    fireEvent.input(screen.getByLabelText('From'), { target: { value: '23:00' } });
    fireEvent.input(screen.getByLabelText('To'), { target: { value: '06:30' } });
    const saves = within(section()).getByRole('button', { name: 'Save' });
    await act(async () => {
      fireEvent.click(saves);
    });
    const put = calls.find((call) => call.method === 'PUT');
    expect(put?.body).toEqual({
      data: {
        push_notifications: 'mentions_replies',
        quiet_hours: '23:00-06:30',
        time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      },
    });
  });

  it('saves no quiet hours as "", with the time inputs disabled', async () => {
    show({ data: { quiet_hours: '22:30-07:00' } });
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'Everything new in my groups' }).checked).toBe(true);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Pause notifications during quiet hours' }));
    expect(screen.getByLabelText<HTMLInputElement>('From').disabled).toBe(true);
    await act(async () => {
      fireEvent.click(within(section()).getByRole('button', { name: 'Save' }));
    });
    expect(calls.find((call) => call.method === 'PUT')?.body).toMatchObject({
      data: { push_notifications: 'all', quiet_hours: '' },
    });
  });

  it('refuses quiet hours that start and end at the same time, and sends nothing', async () => {
    show();
    fireEvent.click(screen.getByRole('checkbox', { name: 'Pause notifications during quiet hours' }));
    fireEvent.input(screen.getByLabelText('To'), { target: { value: '22:00' } });
    await act(async () => {
      fireEvent.click(within(section()).getByRole('button', { name: 'Save' }));
    });
    expect(alerts.getSnapshot().map((alert) => alert.text)).toEqual([
      'Choose a start and an end time for the quiet hours, not the same one.',
    ]);
    expect(document.activeElement).toBe(screen.getByLabelText('From'));
    expect(calls.filter((call) => call.method === 'PUT')).toEqual([]);
  });
});
